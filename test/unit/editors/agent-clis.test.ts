import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userDirs } from '../../../electron/core/user-dirs.mjs';
import { EDITORS } from '../../../electron/core/editors/registry.ts';
import { adapterCases } from './adapter-cases.ts';

// The terminal agents added for issue 38. Their formats come from each client's own documentation
// and source, and from what its own `mcp add` writes; test/clients runs the ones that can run here.

describe('Cline CLI', () => {
  adapterCases('cline-cli', {
    paths: {
      linux: '/home/ann/.cline/data/settings/cline_mcp_settings.json',
      darwin: '/Users/ann/.cline/data/settings/cline_mcp_settings.json',
      win32: 'C:\\Users\\ann\\.cline\\data\\settings\\cline_mcp_settings.json',
    },
    entry: {
      type: 'streamableHttp',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer tok-cline-cli' },
    },
    before: `{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "disabled": false,
      "timeout": 60
    }
  }
}
`,
  });

  it('follows CLINE_DIR, CLINE_DATA_DIR and CLINE_MCP_SETTINGS_PATH, as Cline does', () => {
    const file = (env: Record<string, string>) =>
      EDITORS['cline-cli'].file(userDirs({ HOME: '/home/ann', ...env }, 'linux'));
    expect(file({ CLINE_DIR: '/data/cline' })).toBe('/data/cline/data/settings/cline_mcp_settings.json');
    expect(file({ CLINE_DATA_DIR: '/data/d' })).toBe('/data/d/settings/cline_mcp_settings.json');
    expect(file({ CLINE_MCP_SETTINGS_PATH: '/data/mcp.json' })).toBe('/data/mcp.json');
  });
});

describe('Kilo Code', () => {
  adapterCases('kilo-code', {
    paths: {
      linux: '/home/ann/.config/kilo/kilo.jsonc',
      darwin: '/Users/ann/.config/kilo/kilo.jsonc',
      win32: 'C:\\Users\\ann\\.config\\kilo\\kilo.jsonc',
    },
    entry: {
      type: 'remote',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer {file:/home/me/.switchboard-test/tokens/editors/kilo-code}' },
    },
    before: `{
  "$schema": "https://app.kilo.ai/config.json",
  // mine
  "model": "kilo/anthropic/claude-sonnet-4.5",
  "mcp": {
    "everything": {
      "type": "local",
      "command": ["npx", "-y", "@modelcontextprotocol/server-everything"],
      "enabled": true,
    },
  },
}
`,
  });

  it('writes kilo.json when that is the file there, else kilo.jsonc (the one kilo creates)', () => {
    const home = mkdtempSync(join(tmpdir(), 'sb-kilo-'));
    try {
      const dirs = userDirs({ HOME: home }, process.platform);
      const dir = join(home, '.config', 'kilo');
      expect(EDITORS['kilo-code'].file(dirs)).toBe(join(dir, 'kilo.jsonc'));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'kilo.json'), '{}\n');
      expect(EDITORS['kilo-code'].file(dirs)).toBe(join(dir, 'kilo.json'));
      writeFileSync(join(dir, 'kilo.jsonc'), '{}\n');
      expect(EDITORS['kilo-code'].file(dirs)).toBe(join(dir, 'kilo.jsonc'));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('imports its local servers (a command list, environment) as opencode does', () => {
    expect(
      EDITORS['kilo-code'].foreignServer({
        type: 'local',
        command: ['uvx', 'mcp-server-fetch'],
        environment: {},
      }),
    ).toEqual({ kind: 'stdio', command: 'uvx', args: ['mcp-server-fetch'], env: {}, cwd: undefined });
  });
});

describe('Crush', () => {
  adapterCases('crush', {
    paths: {
      linux: '/home/ann/.config/crush/crush.json',
      darwin: '/Users/ann/.config/crush/crush.json',
      win32: 'C:\\Users\\ann\\AppData\\Local\\crush\\crush.json',
    },
    entry: {
      type: 'http',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: "Bearer $(cat '/home/me/.switchboard-test/tokens/editors/crush')" },
    },
    before: `{
  "$schema": "https://charm.land/crush.json",
  "options": { "debug": false },
  "mcp": {
    "filesystem": {
      "type": "stdio",
      "command": "node",
      "args": ["/opt/mcp/filesystem.js"],
      "env": { "NODE_ENV": "production" }
    }
  }
}
`,
  });

  it("quotes the token file's path for Crush's shell, whatever it holds", () => {
    const entry = EDITORS.crush.managedEntry({
      editor: 'crush',
      server: 'alpha',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      token: () => 'tok',
      tokenFile: "/home/o'brien/$(x)/crush",
      headersHelper: () => '',
      relay: { command: 'node', args: [], env: {} },
    }) as { headers: { Authorization: string } };
    expect(entry.headers.Authorization).toBe(`Bearer $(cat '/home/o'\\''brien/$(x)/crush')`);
  });
});

describe('Amp', () => {
  adapterCases('amp', {
    paths: {
      linux: '/home/ann/.config/amp/settings.json',
      darwin: '/Users/ann/.config/amp/settings.json',
      win32: 'C:\\Users\\ann\\.config\\amp\\settings.json',
    },
    entry: { url: 'http://127.0.0.1:43117/mcp/alpha', headers: { Authorization: 'Bearer tok-amp' } },
    before: `{
  // mine
  "amp.notifications.enabled": false,
  "amp.mcpServers": {
    "context7": { "command": "npx", "args": ["-y", "@upstash/context7-mcp"] }
  }
}
`,
  });
});

describe('Auggie', () => {
  adapterCases('auggie', {
    paths: {
      linux: '/home/ann/.augment/settings.json',
      darwin: '/Users/ann/.augment/settings.json',
      win32: 'C:\\Users\\ann\\.augment\\settings.json',
    },
    entry: {
      type: 'http',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer tok-auggie' },
    },
    before: `{
  "mcpServers": {
    "context7": { "type": "stdio", "command": "npx", "args": ["-y", "@upstash/context7-mcp"] }
  }
}
`,
  });
});

describe('Factory Droid', () => {
  adapterCases('droid', {
    paths: {
      linux: '/home/ann/.factory/mcp.json',
      darwin: '/Users/ann/.factory/mcp.json',
      win32: 'C:\\Users\\ann\\.factory\\mcp.json',
    },
    entry: {
      type: 'http',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer tok-droid' },
    },
    before: `{
  "mcpServers": {
    "playwright": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@playwright/mcp@latest"],
      "disabled": false
    }
  }
}
`,
  });
});
