import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProjectService } from '../../../electron/core/projects/project-service.ts';
import { addProject } from '../../../electron/core/projects/projects-file.ts';
import { fixtureServer, waitFor } from '../../helpers/servers.ts';

/**
 * A running serve follows a project's MCP files with real files and a real chokidar watcher: a change
 * made before the folder is watched (right after serve read the files at its start, or right after
 * the project was added by the CLI or the UI) is read once the watcher is ready, never lost; and the
 * folder is followed from then on. Each change here is made at the one moment the old watcher missed
 * it, so these fail every time on the unfixed code, not now and then.
 */

const made: string[] = [];
const services: ProjectService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function place(): { home: string; userHome: string; acme: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-watch-')));
  made.push(root);
  const out = { home: join(root, 'switchboard'), userHome: join(root, 'user'), acme: join(root, 'acme') };
  for (const dir of Object.values(out)) mkdirSync(dir);
  writeMini(out.acme, 2);
  return out;
}

function writeMini(dir: string, tools: number): void {
  const entry = fixtureServer('mini-server.mjs', `--tools=${tools}`);
  writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { mini: entry } }));
}

function add(home: string, userHome: string, dir: string): void {
  addProject(join(home, 'projects.json'), dir, { now: Date.now(), userHome, switchboardHome: home });
}

/** The project server's args as the service has them now (what the core would run). */
function args(service: ProjectService): string[] | undefined {
  const config = service.servers().get('acme--mini');
  return config && 'args' in config ? config.args : undefined;
}

function service(home: string, onChange: (s: ProjectService) => void = () => {}): ProjectService {
  const s: ProjectService = new ProjectService(home, () => onChange(s));
  services.push(s);
  return s;
}

const read = (s: ProjectService, tools: number, what: string) =>
  waitFor(() => args(s)?.includes(`--tools=${tools}`) || undefined, 10_000, what);

describe("a project's files followed by a running serve", () => {
  it('a change made after serve first read them and before its watcher was ready is read', async () => {
    const { home, userHome, acme } = place();
    add(home, userHome, acme);
    let changes = 0;
    const s = service(home, () => changes++);
    expect(args(s)).toContain('--tools=2');
    // serve reads at its start, starts the core (seconds, under load), then watches.
    writeMini(acme, 3);
    await s.watch();
    await read(s, 3, 'the change made before the watcher was ready');
    expect(changes).toBe(1);
    writeMini(acme, 4);
    await read(s, 4, 'a later change');
  });

  it('a project added by the CLI: a change to its file right after serve read it is read, and later ones', async () => {
    const { home, userHome, acme } = place();
    let changedAtOnce = false;
    const s = service(home, (me) => {
      // The moment serve has read the new project (the entry is there, pending) and not yet
      // watched its folder: the person edits the file.
      if (!changedAtOnce && args(me)?.includes('--tools=2')) {
        changedAtOnce = true;
        writeMini(acme, 3);
      }
    });
    await s.watch();
    add(home, userHome, acme);
    await waitFor(() => changedAtOnce || undefined, 10_000, 'the project read');
    await read(s, 3, 'the change made right after the project was read');
    writeMini(acme, 4);
    await read(s, 4, 'a later change');
  });

  it('a project added in the UI (read there at once): a change to its file then is read, and later ones', async () => {
    const { home, userHome, acme } = place();
    let changes = 0;
    const s = service(home, () => changes++);
    await s.watch();
    // As ProjectDesk.add: projects.json written, read again at once, then the core reloads.
    add(home, userHome, acme);
    s.scan();
    expect(args(s)).toContain('--tools=2');
    writeMini(acme, 3);
    await read(s, 3, 'the change made right after the UI added the project');
    expect(changes).toBeGreaterThan(0);
    writeMini(acme, 4);
    await read(s, 4, 'a later change');
  });
});
