import { describe, expect, it } from 'vitest';
import { userDirs } from '../../../electron/core/user-dirs.mjs';
import { claudeCode } from '../../../electron/core/editors/claude-code.ts';
import { adapterCases } from './adapter-cases.ts';
import { syncText } from './helpers.ts';

const BEFORE = `{
  "numStartups": 42,
  "installMethod": "npm-global",
  "autoUpdates": true,
  "tipsHistory": {
    "new-user-warmup": 1
  },
  "projects": {
    "/home/ann/code/app": {
      "allowedTools": [],
      "mcpServers": {
        "project-db": {
          "type": "stdio",
          "command": "npx",
          "args": ["-y", "some-db-server"]
        }
      },
      "hasTrustDialogAccepted": true
    }
  },
  "userID": "5f2b0c8e1d"
}`;

describe('Claude Code', () => {
  adapterCases('claude-code', {
    paths: {
      linux: '/home/ann/.claude.json',
      darwin: '/Users/ann/.claude.json',
      win32: 'C:\\Users\\ann\\.claude.json',
    },
    entry: {
      type: 'http',
      url: 'http://127.0.0.1:43117/mcp/alpha',
      headersHelper: '/home/me/.switchboard-test/bin/editor-headers claude-code',
    },
    before: BEFORE,
  });

  it("touches only the top-level mcpServers, never a project's", () => {
    const synced = syncText('claude-code', BEFORE, ['alpha']);
    const parsed = JSON.parse(synced.text ?? '') as {
      projects: Record<string, { mcpServers: object }>;
      mcpServers: object;
    };
    expect(parsed.projects['/home/ann/code/app']?.mcpServers).toEqual(
      JSON.parse(BEFORE).projects['/home/ann/code/app'].mcpServers,
    );
    expect(Object.keys(parsed.mcpServers)).toEqual(['alpha']);
  });

  it('follows CLAUDE_CONFIG_DIR', () => {
    expect(claudeCode.file(userDirs({ HOME: '/home/ann', CLAUDE_CONFIG_DIR: '/data/claude' }, 'linux'))).toBe(
      '/data/claude/.claude.json',
    );
  });
});
