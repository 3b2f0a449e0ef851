import { describe, expect, it } from 'vitest';
import { resolveHome } from '../../electron/core/home.ts';
import { serversJsonSchema } from '../../shared/schema/json-schema.ts';
import { readFileSync } from 'node:fs';

describe('Switchboard home', () => {
  it('prefers $SWITCHBOARD_HOME', () => {
    expect(resolveHome({ SWITCHBOARD_HOME: '/x/sb', HOME: '/home/me' }, 'linux').serversFile).toBe(
      '/x/sb/servers.json',
    );
  });

  it('uses each OS app-data folder', () => {
    expect(resolveHome({ HOME: '/Users/me' }, 'darwin').root).toBe(
      '/Users/me/Library/Application Support/Switchboard',
    );
    expect(resolveHome({ HOME: '/home/me' }, 'linux').root).toBe('/home/me/.config/switchboard');
    expect(resolveHome({ HOME: '/home/me', XDG_CONFIG_HOME: '/cfg' }, 'linux').root).toBe('/cfg/switchboard');
    expect(resolveHome({ APPDATA: 'C:\\Users\\me\\AppData\\Roaming' }, 'win32').stateFile).toBe(
      'C:\\Users\\me\\AppData\\Roaming\\Switchboard\\state.json',
    );
    // Git Bash sets HOME to a folder of its own; Windows' own profile folder wins, as for editors.
    expect(resolveHome({ USERPROFILE: 'C:\\Users\\me', HOME: '/c/Users/me' }, 'win32').root).toBe(
      'C:\\Users\\me\\AppData\\Roaming\\Switchboard',
    );
  });
});

describe('shipped JSON Schema', () => {
  it('is generated from the zod schema and up to date (run: npm run schema)', () => {
    const shipped: unknown = JSON.parse(
      readFileSync(new URL('../../shared/schema/servers.schema.json', import.meta.url), 'utf8'),
    );
    expect(shipped).toEqual(serversJsonSchema());
  });
});
