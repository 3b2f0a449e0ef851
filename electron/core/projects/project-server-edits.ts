import type { ProjectOrigin } from './project-service.ts';

/** What a command or the UI would change in servers.json for a server. */
export type ServersFileEdit = 'remove' | 'disable' | 'grant' | 'edit';

type Origin = Pick<ProjectOrigin, 'project' | 'file'>;

/**
 * A project server is its project file's entry, not servers.json's: removing, disabling, granting
 * its sandbox a path or editing it (its tool filter) there would act on nothing (or add a second
 * server of the person's own under its name). The words say where it comes from and what to do.
 */
export function projectServerEditRefusal(name: string, origin: Origin, edit: ServersFileEdit): string {
  const instead = {
    remove: 'take it out of that file',
    disable: `stop it (switchboard stop ${name}) or take it out of that file`,
    grant: "its sandbox is the project's folder; change the entry in that file",
    edit: 'change it in that file',
  }[edit];
  return (
    `"${name}" comes from ${origin.file} (the project "${origin.project}"), not servers.json: ` +
    `${instead}, or remove the project (switchboard projects rm ${origin.project})`
  );
}
