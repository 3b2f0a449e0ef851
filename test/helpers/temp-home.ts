import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHome, type HomePaths } from '../../electron/core/home.ts';

export interface TempHome {
  dir: string;
  home: HomePaths;
  /** environment for a Switchboard running against this home (and a HOME of its own) */
  env: NodeJS.ProcessEnv;
  writeServers(content: unknown): void;
  cleanup(): void;
}

/** A throwaway Switchboard home (and user HOME) in a temp folder. */
export function tempHome(): TempHome {
  const dir = mkdtempSync(join(tmpdir(), 'sb-home-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: join(dir, 'user'),
    XDG_CONFIG_HOME: join(dir, 'user', '.config'),
    SWITCHBOARD_HOME: join(dir, 'switchboard'),
  };
  const home = resolveHome(env);
  mkdirSync(home.root, { recursive: true });
  return {
    dir,
    home,
    env,
    writeServers(content) {
      writeFileSync(
        home.serversFile,
        typeof content === 'string' ? content : JSON.stringify(content, null, 2),
      );
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every file under `dir`, recursively. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** Every file under `dir` that holds `text` (editor files, servers.json, state.json, backups…). */
export function filesHolding(dir: string, text: string): string[] {
  return filesUnder(dir).filter((file) => readFileSync(file, 'utf8').includes(text));
}
