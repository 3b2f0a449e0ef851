import { describe, expect, it } from 'vitest';
import { claudeDesktop } from '../../../electron/core/editors/claude-desktop.ts';
import { adapterCases } from './adapter-cases.ts';
import { ownership, TEST_RELAY } from './helpers.ts';

describe('Claude Desktop', () => {
  adapterCases('claude-desktop', {
    paths: {
      linux: '/home/ann/.config/Claude/claude_desktop_config.json',
      darwin: '/Users/ann/Library/Application Support/Claude/claude_desktop_config.json',
      win32: 'C:\\Users\\ann\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    },
    entry: {
      command: TEST_RELAY.command,
      args: [...TEST_RELAY.args, '--server', 'alpha', '--editor', 'claude-desktop'],
      env: { SWITCHBOARD_HOME: TEST_RELAY.env.SWITCHBOARD_HOME },
    },
    before: `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/Users/ann/Desktop"
      ]
    }
  },
  "globalShortcut": "Alt+Space"
}`,
  });

  it('recognises the relay of this home only (same SWITCHBOARD_HOME, or none for the default home)', () => {
    const entry = {
      command: '/usr/bin/node',
      args: ['/x/electron/relay/main.ts', '--server', 'a', '--editor', 'claude-desktop'],
    };
    expect(claudeDesktop.pointsAtBridge(entry, { ...ownership(), homeIsDefault: true })).toBe(true);
    expect(claudeDesktop.pointsAtBridge(entry, { ...ownership(), homeIsDefault: false })).toBe(false);
    const withHome = { ...entry, env: { SWITCHBOARD_HOME: '/h' } };
    expect(claudeDesktop.pointsAtBridge(withHome, { ...ownership(), homeRoot: '/h' })).toBe(true);
    expect(claudeDesktop.pointsAtBridge(withHome, { ...ownership(), homeRoot: '/other' })).toBe(false);
  });

  it('puts no token or URL in the file, and says Claude Desktop must restart', () => {
    expect(claudeDesktop.restartNotice).toMatch(/restart|quit and reopen/i);
    expect(claudeDesktop.processNames?.darwin).toContain('Claude');
  });
});
