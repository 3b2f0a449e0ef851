import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readServerValue, setServer } from '../../../electron/core/config/edit.ts';
import { installFromLink, type InstallTarget } from '../../../electron/desktop/install-link.ts';
import { tempHome, type TempHome } from '../../helpers/temp-home.ts';

describe('install links', () => {
  let t: TempHome;
  let sources: string[];
  let target: InstallTarget;

  beforeEach(() => {
    t = tempHome();
    sources = [];
    const file = t.home.serversFile;
    // The same wiring as electron/shell/main.ts, against a real servers.json.
    target = {
      exists: (name) => readServerValue(file, name) !== undefined,
      add: (name, config) => setServer(file, name, config),
      noteSource: (name) => sources.push(name),
    };
  });
  afterEach(() => t.cleanup());

  it('adds a new server and opens its approval', () => {
    t.writeServers({ mcpServers: {} });
    const outcome = installFromLink(
      { name: 'everything', config: { command: 'npx', args: ['-y', 'x'] } },
      target,
    );
    expect(outcome).toEqual({ ok: true, server: 'everything', view: 'approvals' });
    expect(readServerValue(t.home.serversFile, 'everything')).toEqual({ command: 'npx', args: ['-y', 'x'] });
    expect(sources).toEqual(['everything']);
  });

  it('never replaces an existing server: the file stays byte for byte', () => {
    t.writeServers(
      '{\n  // mine\n  "mcpServers": {\n    "github": { "command": "github-mcp", "env": { "T": "${secret:gh}" } }\n  }\n}\n',
    );
    const before = readFileSync(t.home.serversFile, 'utf8');
    const outcome = installFromLink(
      { name: 'github', config: { command: 'evil', args: ['--steal'] } },
      target,
    );
    expect(outcome).toEqual({
      ok: false,
      message:
        'Switchboard did not add "github": a server named "github" already exists — remove it or rename the link\'s server.',
    });
    expect(readFileSync(t.home.serversFile, 'utf8')).toBe(before);
    expect(sources).toEqual([]);
  });
});
