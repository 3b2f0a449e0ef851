import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { displayText } from '../../../shared/display-text.ts';
import type { EditorId } from '../../../shared/editors.ts';
import { PROJECT_SEPARATOR, type Project, type ProjectServerInfo } from '../../../shared/schema/projects.ts';
import {
  SERVER_NAME_PATTERN,
  ServerConfigSchema,
  type ServerConfig,
} from '../../../shared/schema/servers.ts';
import { SECRET_NAME_PATTERN } from '../../../shared/secrets.ts';
import type { ForeignServer } from '../editors/types.ts';
import { canonicalJson } from '../trust/canonical-json.ts';
import type { ProjectFileRead } from './project-files.ts';

/** One server of a project, as Switchboard runs it (config) and shows it (info). */
export interface ProjectServer {
  project: string;
  dir: string;
  info: ProjectServerInfo;
  /** undefined when refused (info.problem says why): then it is not one of Switchboard's servers */
  config: ServerConfig | undefined;
}

/** The folder's own path, which VS Code, Cursor and Claude Code let a project file name (split on: odd parts). */
const WORKSPACE_VARIABLE = /(\$\{(?:workspaceFolder|workspaceRoot|CLAUDE_PROJECT_DIR)\})/;
/** Anything else in `${…}`: an editor fills it from the person's environment, secrets or a prompt. */
const REQUEST = /\$\{[^}]*\}?/g;
/** Gemini CLI and Qwen Code also expand `$VAR`. */
const REQUEST_OR_BARE = /\$\{[^}]*\}?|\$[A-Za-z_][A-Za-z0-9_]*/g;
const BARE_VARIABLE_EDITORS: ReadonlySet<EditorId> = new Set(['gemini-cli', 'qwen-code']);

/**
 * A project's servers from its files, named `<project>--<entry>`. What an entry asks of the person's
 * (environment, secrets, prompts) becomes a keychain secret of that server's own, never one of
 * theirs; entries that reach outside the folder, ask for a value where none can be passed, or do not
 * parse are refused with the reason: a project's file is the repository's word, and a clone must not
 * borrow the person's credentials or run anywhere but in its folder.
 */
export function projectServers(project: Project, files: readonly ProjectFileRead[]): ProjectServer[] {
  const servers: ProjectServer[] = [];
  const byName = new Map<string, ProjectServer>();
  for (const read of files) {
    for (const { entry, server, problem } of read.entries) {
      const base = sanitize(entry);
      let name = `${project.name}${PROJECT_SEPARATOR}${base}`;
      const made = server
        ? configOf(project.dir, server, read.editor, name)
        : { problem: displayText(problem ?? 'it cannot be read'), requests: [] };
      const earlier = byName.get(name);
      if (earlier) {
        // The same server in two editors' files (a team writing it for each): one server.
        if (
          'config' in made &&
          earlier.config &&
          canonicalJson(earlier.config) === canonicalJson(made.config)
        )
          continue;
        name = `${name}-${read.editor}`;
      }
      const tooLong = !SERVER_NAME_PATTERN.test(name)
        ? `its name in Switchboard, "${name}", is longer than 48 characters: give the project a shorter name (switchboard projects add DIR --name SHORT)`
        : undefined;
      const refusal = tooLong ?? ('problem' in made ? made.problem : undefined);
      const requests = 'requests' in made ? made.requests : [];
      const one: ProjectServer = {
        project: project.name,
        dir: project.dir,
        info: {
          name,
          entry,
          file: read.file,
          digest: read.digest,
          requests,
          ...(refusal === undefined
            ? {}
            : { problem: `"${displayText(entry)}" in ${displayText(read.file)}: ${refusal}` }),
        },
        config: refusal === undefined && 'config' in made ? made.config : undefined,
      };
      byName.set(name, one);
      servers.push(one);
    }
  }
  return servers;
}

/** The env variable holding the digests of the repository files a project server's command names. */
export const SCRIPTS_ENV = 'SWITCHBOARD_PROJECT_FILES';

/** `path:sha256(first 24 hex)` of each file inside the folder that the command line names (resolved from cwd). */
function repositoryFiles(dir: string, cwd: string, words: readonly string[]): string[] {
  const found: string[] = [];
  for (const word of words) {
    const path = resolve(cwd, word);
    const inside = relative(dir, path);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) continue;
    try {
      if (!statSync(path).isFile()) continue;
      // 96 bits of sha256: beyond a second preimage, and under the 32 hex characters the
      // literal-secret check would take for a key.
      const digest = createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 24);
      found.push(`${inside}:${digest}`);
    } catch {
      // not a file (a flag, a module name): nothing to pin
    }
  }
  return found;
}

/** Every file inside the folder a project server's command line names (what the watcher follows). */
export function scriptPaths(dir: string, config: ServerConfig | undefined): string[] {
  if (!config || !('command' in config)) return [];
  const words = config.env[SCRIPTS_ENV]?.split(' ') ?? [];
  return words.map((w) => resolve(dir, w.slice(0, w.lastIndexOf(':'))));
}

function sanitize(entry: string): string {
  const cleaned = entry
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
  return cleaned === '' ? 'server' : cleaned;
}

type Made = { config: ServerConfig; requests: string[] } | { problem: string; requests: string[] };

/**
 * The keychain secret holding the value the person gave for a project server's request: its own,
 * never one of the person's (`project.<server>.<VAR>`, or a digest when that is too long).
 */
export function requestSecretName(server: string, request: string): string {
  const variable = request
    .replace(/^\$\{?(?:env:|secret:|input:)?|\}$/g, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '_');
  const name = `project.${server}.${variable}`;
  return SECRET_NAME_PATTERN.test(name)
    ? name
    : `project.${createHash('sha256').update(`${server}\0${request}`).digest('hex').slice(0, 24)}`;
}

function configOf(dir: string, server: ForeignServer, editor: EditorId, name: string): Made {
  const requests = new Set<string>();
  const pattern = BARE_VARIABLE_EDITORS.has(editor) ? REQUEST_OR_BARE : REQUEST;
  // The folder variables are the folder. Every other request is a keychain secret of this server's
  // own (`project.<server>.<VAR>`), whether or not a value was given yet: what runs is the same
  // before and after, so the approval holds, and the value is a secret the server cannot start
  // without (start-blockers.ts says so; the approval card takes it).
  const fill = (value: string) =>
    value
      .split(WORKSPACE_VARIABLE)
      .map((part, i) =>
        i % 2 === 1
          ? dir
          : part.replace(pattern, (request) => {
              requests.add(request);
              return `\${secret:${requestSecretName(name, request)}}`;
            }),
      )
      .join('');
  let raw: Record<string, unknown>;
  if (server.kind === 'stdio') {
    // A secret reaches a server through its env, arguments, URL or headers only: a command or cwd
    // that asks for one cannot run as approved.
    for (const [field, value] of [
      ['command', server.command],
      ['cwd', server.cwd ?? ''],
    ] as const) {
      const asked = value
        .split(WORKSPACE_VARIABLE)
        .filter((_, i) => i % 2 === 0)
        .join('')
        .match(pattern);
      if (asked)
        return {
          problem: `its "${field}" asks for ${asked.map(displayText).join(', ')}: a project server can be given a value of its own only in its env, arguments, URL or headers`,
          requests: [],
        };
    }
    const args = server.args.map(fill);
    const env = Object.fromEntries(Object.entries(server.env).map(([k, v]) => [k, fill(v)]));
    const command = fill(server.command);
    const cwd = resolve(dir, server.cwd === undefined ? '.' : fill(server.cwd));
    const inside = relative(dir, cwd);
    if (inside.startsWith('..') || isAbsolute(inside))
      return { problem: `its "cwd" (${displayText(cwd)}) is outside the project folder`, requests: [] };
    // The repository's own files it runs (`node ./server.js`) are part of what is approved: their
    // digests sit in its env, so a changed script changes the fingerprint and waits again.
    const scripts = repositoryFiles(dir, cwd, [command, ...args]);
    const pinned = scripts.length > 0 ? { [SCRIPTS_ENV]: scripts.join(' ') } : {};
    // The project folder is all of the home it gets (besides its own data folder): read and write.
    raw = { command, args, env: { ...env, ...pinned }, cwd, sandbox: { write: [dir] }, editors: [] };
  } else {
    const url = fill(server.url);
    const headers = Object.fromEntries(Object.entries(server.headers).map(([k, v]) => [k, fill(v)]));

    raw = { url, headers, editors: [] };
  }
  // `editors: []`: editor sync writes it into no editor's own settings (every folder); editors reach
  // it on the project's routes alone (bridge/project-scope.ts), which the editors' per-project
  // settings name.
  const parsed = ServerConfigSchema.safeParse(raw);
  if (!parsed.success)
    return {
      problem: displayText(
        parsed.error.issues.map((i) => `${i.path.join('.') || 'entry'}: ${i.message}`).join('; '),
      ),
      requests: [],
    };
  return { config: parsed.data, requests: [...requests] };
}
