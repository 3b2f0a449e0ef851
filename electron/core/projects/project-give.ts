import type { ProjectGiven } from '../../../shared/schema/projects.ts';
import { UserError } from '../errors.ts';
import type { ProjectService } from './project-service.ts';
import { requestSecretName } from './project-servers.ts';
import { giveRequest } from './projects-file.ts';

/** Refuses a server that is no project's, or a request its file does not make, saying what it asks. */
export function checkGive(service: Pick<ProjectService, 'infos'>, server: string, request: string): void {
  const info = service
    .infos()
    .flatMap((p) => p.servers)
    .find((s) => s.name === server);
  if (!info) throw new UserError(`no project server "${server}"`, { hint: 'see: switchboard projects' });
  if (!info.requests.includes(request))
    throw new UserError(`"${server}" does not ask for ${request}`, {
      hint: info.requests.length ? `it asks for: ${info.requests.join(', ')}` : 'it asks for nothing',
    });
}

/**
 * The value for one request of a project server's file, from `projects give` or the UI: kept in the
 * keychain as a secret of that server's own, recorded (by name only) in projects.json. The entry
 * names that secret from the start (project-servers.ts), so its config and approval stay as they
 * were: the value only lets it start.
 */
export async function giveValue(options: {
  service: Pick<ProjectService, 'infos' | 'file'>;
  server: string;
  request: string;
  value: string;
  setSecret: (name: string, value: string) => Promise<unknown>;
}): Promise<ProjectGiven> {
  const { service, server, request, value } = options;
  checkGive(service, server, request);
  if (value === '') throw new UserError(`no value given for ${request}`);
  const secret = requestSecretName(server, request);
  await options.setSecret(secret, value);
  giveRequest(service.file, server, request);
  return { server, request, secret };
}

/**
 * The keychain secrets a project's servers' requests are kept as, given or not. When a project is
 * added they are deleted: a value left under one of those names (a project of that name removed while
 * the keychain could not be reached, or set by hand) would otherwise reach a server whose approval
 * says it cannot start until it is given one.
 */
export function valueSecretsOf(service: Pick<ProjectService, 'infos'>, project: string): string[] {
  const info = service.infos().find((p) => p.name === project);
  return (info?.servers ?? []).flatMap((s) => s.requests.map((r) => requestSecretName(s.name, r)));
}
