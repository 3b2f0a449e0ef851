import { describe, expect, it } from 'vitest';
import { approvalBody } from '../../../electron/desktop/notifications.ts';
import type { ApprovalPreview } from '../../../shared/api.ts';

// What an approval notification says: its Approve button approves exactly the preview it was made
// from, so the package and its exact version must be in it, not only the command line.

const preview = (extra: Partial<ApprovalPreview>): ApprovalPreview => ({
  name: 'gh',
  state: 'pending-approval',
  transport: 'stdio',
  source: 'cli',
  edits: [],
  fingerprint: 'f'.repeat(64),
  lines: ['command: /usr/bin/npx -y @modelcontextprotocol/server-github'],
  references: ['gives your keychain secret "gh-token" to /usr/bin/node in env GITHUB_TOKEN'],
  access: [],
  package: null,
  packageNote: null,
  willNotStart: [],
  ...extra,
});

describe('approval notification text', () => {
  it('names the package, its exact version, date, dependencies, scripts and changes', () => {
    const body = approvalBody(
      preview({
        package: {
          kind: 'npm',
          name: '@modelcontextprotocol/server-github',
          version: '2025.4.8',
          publishedAt: '2025-04-08T10:00:00.000Z',
          dependencies: 57,
          installScripts: [],
          scriptsRun: false,
          lines: [
            'package: @modelcontextprotocol/server-github 2025.4.8 (published 2025-04-08) from the npm registry',
            'dependencies: 57',
            'install scripts: none',
            'runs from the store: /usr/bin/node /home/you/store/npm/x/node_modules/…/dist/index.js',
            `pinned: ${'a'.repeat(64)}`,
          ],
          changes: ['@modelcontextprotocol/server-github 2025.4.7 → 2025.4.8', 'added zod 3.25.1'],
          notes: [],
          scriptsFingerprint: null,
        },
      }),
    );
    expect(body.split('\n')).toEqual([
      'command: /usr/bin/npx -y @modelcontextprotocol/server-github',
      'package: @modelcontextprotocol/server-github 2025.4.8 (published 2025-04-08) from the npm registry',
      'dependencies: 57',
      'install scripts: none',
      'changed: @modelcontextprotocol/server-github 2025.4.7 → 2025.4.8; added zod 3.25.1',
      'gives your keychain secret "gh-token" to /usr/bin/node in env GITHUB_TOKEN',
    ]);
  });

  it('says, right under the command, what would stop it from starting', () => {
    const line = 'WILL NOT START: command not found on PATH: no-such-program';
    const body = approvalBody(preview({ lines: ['command: no-such-program'], willNotStart: [line] }));
    expect(body.split('\n').slice(0, 2)).toEqual(['command: no-such-program', line]);
  });

  it("says, right under the command, that a project server cannot start until its file's value is given", () => {
    const body = approvalBody(
      preview({
        lines: ['command: /usr/bin/node server.js'],
        origin: {
          project: 'acme',
          dir: '/src/acme',
          file: '/src/acme/.mcp.json',
          digest: 'a'.repeat(64),
          needs: [{ request: '${GH\u200bTOKEN}', secret: 'project.acme--gh.GH_TOKEN' }],
        },
      }),
    );
    expect(body.split('\n').slice(0, 2)).toEqual([
      'command: /usr/bin/node server.js',
      'WILL NOT START until you give it a value for ${GH\\u{200B}TOKEN} (on its approval card)',
    ]);
  });

  it('says what it may write and reach in its sandbox, or that it has none', () => {
    const sandboxed = approvalBody(
      preview({
        access: [
          'reads and writes only: ~/.config/switchboard/data/gh (its own folder), a private temp folder',
          'reads: the system (read-only); your home folder only for language toolchains (~/.nvm, ~/.npm, ~/.cache/uv, …)',
          'cannot see: your keys and credentials (~/.ssh, …)',
          'network: only api.github.com (through Switchboard’s proxy)',
        ],
      }),
    ).split('\n');
    expect(sandboxed.slice(1, 3)).toEqual([
      'reads and writes only: ~/.config/switchboard/data/gh (its own folder), a private temp folder',
      'network: only api.github.com (through Switchboard’s proxy)',
    ]);
    const open = approvalBody(
      preview({
        access: [
          'NOT sandboxed: it can read and change everything you can — Windows has no sandbox Switchboard can use',
        ],
      }),
    );
    expect(open).toContain('NOT sandboxed: it can read and change everything you can');
  });

  it('says when a package run is not pinned', () => {
    expect(approvalBody(preview({ packageNote: 'not pinned: npx is given --registry' }))).toContain(
      'not pinned: npx is given --registry',
    );
  });
});
