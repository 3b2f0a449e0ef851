import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../../../electron/core/errors.ts';
import { Supervisor } from '../../../electron/core/supervisor/supervisor.ts';
import type { DesiredServer } from '../../../electron/core/supervisor/types.ts';
import { childEnv, fixture, nodeServer, sleep, waitFor, waitForState } from './helpers.ts';

describe('servers that cannot start', () => {
  let home: string;
  let supervisor: Supervisor;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'switchboard-err-'));
    supervisor = new Supervisor({ logsDir: join(home, 'logs') });
  });

  afterEach(async () => {
    await supervisor.shutdown();
    rmSync(home, { recursive: true, force: true });
  });

  function command(name: string, path: string): DesiredServer {
    return {
      name,
      fingerprint: 'fp',
      transport: 'stdio',
      prepare: async () => ({
        transport: 'stdio',
        command: path,
        args: [],
        cwd: undefined,
        env: childEnv(),
        redact: [],
      }),
    };
  }

  it('a missing command is an error a person can act on, with no retries', async () => {
    const missing = join(home, 'no-such-server');
    await supervisor.reconcile([command('ghost', missing)]);
    await waitForState(supervisor, 'ghost', 'error');
    expect(supervisor.statusOf('ghost')?.lastError).toBe(
      `command not found: ${missing} — check that it is installed and the path is right`,
    );
    await sleep(1_500);
    expect(supervisor.statusOf('ghost')).toMatchObject({ state: 'error', restarts: 0, nextRetryAt: null });
  });

  it('a missing working directory is named as such, not as a missing command', async () => {
    const cwd = join(home, 'gone');
    await supervisor.reconcile([
      {
        ...command('nocwd', process.execPath),
        prepare: async () => ({
          transport: 'stdio',
          command: process.execPath,
          args: [],
          cwd,
          env: childEnv(),
          redact: [],
        }),
      },
    ]);
    await waitForState(supervisor, 'nocwd', 'error');
    expect(supervisor.statusOf('nocwd')?.lastError).toBe(
      `working directory does not exist: ${cwd} — fix "cwd"`,
    );
  });

  it('a command that is not executable is an error too', async () => {
    const script = join(home, 'not-executable');
    writeFileSync(script, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    await supervisor.reconcile([command('noexec', script)]);
    await waitForState(supervisor, 'noexec', 'error');
    expect(supervisor.statusOf('noexec')?.lastError).toMatch(
      /^cannot run .*not-executable: permission denied/,
    );
  });

  it("prepare()'s UserError (missing secret) becomes the error, and start() retries after the fix", async () => {
    let secretStored = false;
    const server: DesiredServer = {
      ...nodeServer('needs-secret', fixture('mini-server.mjs')),
      prepare: async () => {
        if (!secretStored) {
          throw new UserError('secret "github-token" is not in the keychain', {
            hint: 'store it with: switchboard secret set github-token',
          });
        }
        return nodeServer('x', fixture('mini-server.mjs')).prepare();
      },
    };
    await supervisor.reconcile([server]);
    await waitForState(supervisor, 'needs-secret', 'error');
    expect(supervisor.statusOf('needs-secret')?.lastError).toBe(
      'secret "github-token" is not in the keychain — store it with: switchboard secret set github-token',
    );
    // Reconciling the same config again changes nothing...
    await supervisor.reconcile([server]);
    expect(supervisor.statusOf('needs-secret')?.state).toBe('error');
    // ...a person fixing it and pressing start does.
    secretStored = true;
    await supervisor.start('needs-secret');
    await waitForState(supervisor, 'needs-secret', 'running');
    expect(supervisor.statusOf('needs-secret')?.lastError).toBeNull();
  });

  it('a config change takes a server out of crash-loop', async () => {
    await supervisor.reconcile([nodeServer('loopy', fixture('crash-on-start.mjs'))]);
    await waitForState(supervisor, 'loopy', 'backoff');
    await supervisor.reconcile([
      nodeServer('loopy', fixture('mini-server.mjs'), [], { fingerprint: 'fp-fixed' }),
    ]);
    await waitForState(supervisor, 'loopy', 'running');
  });
});

describe('secrets never reach the logs', () => {
  const SECRET = 'ghp_SuperSecretTokenValue1234567890';
  let home: string;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'switchboard-redact-'));
  });

  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
  });

  it('stderr (even split across writes) and the spawned command line are redacted in memory, file and events', async () => {
    const supervisor = new Supervisor({ logsDir: join(home, 'logs') });
    const events: string[] = [];
    supervisor.on('log', (line) => events.push(line.text));
    try {
      await supervisor.reconcile([
        nodeServer('leaky', fixture('mini-server.mjs'), ['--print-env=API_TOKEN', `--token=${SECRET}`], {
          env: { API_TOKEN: SECRET },
          redact: [SECRET],
        }),
      ]);
      await waitForState(supervisor, 'leaky', 'running');
      await waitFor(
        () => supervisor.logs('leaky').some((l) => l.text.startsWith('split:')),
        'the split secret line',
      );
    } finally {
      await supervisor.shutdown();
    }
    const memory = supervisor.logs('leaky').map((l) => l.text);
    const file = readFileSync(join(home, 'logs', 'leaky.log'), 'utf8');
    expect(memory).toContain('whole: token=[redacted] end');
    expect(memory).toContain('split: token=[redacted] end');
    expect(memory).toContainEqual(
      expect.stringMatching(
        /^spawned pid \d+: .*mini-server\.mjs --print-env=API_TOKEN --token=\[redacted\]$/,
      ),
    );
    for (const text of [memory.join('\n'), file, events.join('\n')]) {
      expect(text).not.toContain(SECRET);
      // no piece of it either (the split halves)
      expect(text).not.toContain(SECRET.slice(0, SECRET.length / 2));
      expect(text).not.toContain(SECRET.slice(SECRET.length / 2));
    }
    expect(file).toContain('split: token=[redacted] end');
  });
});
