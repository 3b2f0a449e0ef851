import { readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, join, relative, isAbsolute } from 'node:path';
import {
  PROJECT_NAME_MAX,
  ProjectNameSchema,
  ProjectsFileSchema,
  type Project,
} from '../../../shared/schema/projects.ts';
import { UserError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { realOrAsGiven } from '../fs/real-path.ts';

/** <home>/projects.json: the folders whose committed MCP files Switchboard reads. */
export function projectsFilePath(homeRoot: string): string {
  return join(homeRoot, 'projects.json');
}

export function readProjects(file: string): Project[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const parsed = ProjectsFileSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new UserError(`${file} is not a projects file Switchboard can read`, {
      hint: 'fix or remove it, then add the projects again (switchboard projects add DIR)',
    });
  return parsed.data.projects;
}

function writeProjects(file: string, projects: readonly Project[]): void {
  writeFileAtomic(file, `${JSON.stringify({ version: 1, projects }, null, 2)}\n`, { mode: 0o600 });
}

/**
 * Adds a folder. Refused: not a folder; the home folder itself or a folder holding it, or one holding
 * Switchboard's home (its servers would be granted all of it); a folder or name already added.
 */
export function addProject(
  file: string,
  dir: string,
  options: { name?: string; now: number; userHome: string; switchboardHome: string },
): Project {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    throw new UserError(`no folder at ${dir}`);
  }
  if (!statSync(real).isDirectory()) throw new UserError(`${dir} is not a folder`);
  for (const [what, inner] of [
    ['your home folder', options.userHome],
    ["Switchboard's home", options.switchboardHome],
  ] as const) {
    const innerReal = realOrAsGiven(inner);
    const rel = relative(real, innerReal);
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)))
      throw new UserError(`${real} holds ${what}: its servers would be granted all of it`, {
        hint: 'add the repository folder itself',
      });
  }
  const projects = readProjects(file);
  const same = projects.find((p) => p.dir === real);
  if (same) throw new UserError(`${real} is already the project "${same.name}"`);
  const name = options.name ?? defaultName(real);
  const named = ProjectNameSchema.safeParse(name);
  if (!named.success)
    throw new UserError(`"${name}" cannot be a project name: ${named.error.issues[0]?.message ?? ''}`, {
      hint: 'choose one with --name NAME',
    });
  if (projects.some((p) => p.name === name))
    throw new UserError(`a project is already named "${name}"`, { hint: 'choose another with --name NAME' });
  const project: Project = { name, dir: real, addedAt: options.now, given: {} };
  writeProjects(file, [...projects, project]);
  return project;
}

/** Removes a project by its folder or name; returns it (undefined: none such). */
export function removeProject(file: string, dirOrName: string): Project | undefined {
  const projects = readProjects(file);
  const real = realOrAsGiven(dirOrName);
  const gone = projects.find((p) => p.name === dirOrName || p.dir === real);
  if (!gone) return undefined;
  writeProjects(
    file,
    projects.filter((p) => p !== gone),
  );
  return gone;
}

/**
 * Records that the person gave a value for a request of a project server's file (the value itself
 * is in the keychain). Returns the project.
 */
export function giveRequest(file: string, server: string, request: string): Project {
  const projects = readProjects(file);
  const project = projects.find((p) => server.startsWith(`${p.name}--`));
  if (!project)
    throw new UserError(`"${server}" is no project's server`, { hint: 'see: switchboard projects' });
  const given = project.given[server] ?? [];
  if (!given.includes(request)) project.given = { ...project.given, [server]: [...given, request] };
  writeProjects(file, projects);
  return project;
}

/** The folder's name in the project-name alphabet: "my.repo" → "my_repo". */
function defaultName(dir: string): string {
  const cleaned = basename(dir)
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, PROJECT_NAME_MAX)
    .replace(/-+$/, '');
  return cleaned === '' ? 'project' : cleaned;
}
