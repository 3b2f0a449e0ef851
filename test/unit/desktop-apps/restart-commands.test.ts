import { describe, expect, it } from 'vitest';
import { darwinApps, parseElapsed } from '../../../electron/core/desktop-apps/darwin.ts';
import type { Launch } from '../../../electron/core/desktop-apps/run.ts';
import {
  startedBefore,
  type DesktopApp,
  type ExecResult,
} from '../../../electron/core/desktop-apps/types.ts';
import { listScript, win32Apps } from '../../../electron/core/desktop-apps/win32.ts';
import { describeError } from '../../../electron/core/errors.ts';
import { claudeDesktop } from '../../../electron/core/editors/claude-desktop.ts';
import { desktopAppOf } from '../../../electron/core/editors/processes.ts';

/**
 * macOS and Windows cannot run here: these check the command sequences with an injected exec (a
 * scripted fake of ps/osascript/open and PowerShell/taskkill) and a fake clock. Linux runs for real
 * in test/integration/editors/claude-restart.test.ts.
 */
const app: DesktopApp = desktopAppOf(claudeDesktop) ?? {
  label: 'Claude Desktop',
  processNames: { linux: [], darwin: [], win32: [] },
  macAppName: 'Claude',
};

/** A clock whose sleep moves time on, so waits end at once. */
function fakeClock(start = 1_000_000) {
  let now = start;
  return {
    now: () => now,
    sleep: (ms: number) => {
      now += ms;
      return Promise.resolve();
    },
  };
}

type Handler = (command: string, args: readonly string[]) => ExecResult | undefined;
function scriptedExec(handler: Handler) {
  const calls: string[] = [];
  const exec = (command: string, args: readonly string[]) => {
    calls.push([command, ...args].join(' '));
    return Promise.resolve(handler(command, args) ?? { code: 0, stdout: '', stderr: '' });
  };
  return { exec, calls };
}
const ok = (stdout = ''): ExecResult => ({ code: 0, stdout, stderr: '' });

/** The error as a person reads it (message — what to do). */
async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    return describeError(err);
  }
  throw new Error('it did not fail');
}

describe('macOS: ps, osascript, open', () => {
  const PS_LINE = (pid: number, etime: string, comm: string, uid = 501) =>
    `  ${pid}     1   ${uid} ${etime} ${comm}`;

  it('reads etime', () => {
    expect(parseElapsed('05:03')).toBe(303);
    expect(parseElapsed('02:05:03')).toBe(2 * 3600 + 303);
    expect(parseElapsed('1-02:05:03')).toBe(86400 + 2 * 3600 + 303);
    expect(parseElapsed('junk')).toBeUndefined();
  });

  it('lists the app by its executable name exactly, this user only, with start times from etime', async () => {
    const clock = fakeClock();
    const { exec } = scriptedExec(() =>
      ok(
        [
          PS_LINE(100, '01:00', '/Applications/Claude.app/Contents/MacOS/Claude'),
          PS_LINE(
            101,
            '00:59',
            '/Applications/Claude.app/Contents/Frameworks/Claude Helper (Renderer).app/Contents/MacOS/Claude Helper (Renderer)',
          ),
          PS_LINE(102, '00:10', '/usr/local/bin/claude'),
          PS_LINE(103, '00:10', '/Applications/Claude.app/Contents/MacOS/Claude', 502),
        ].join('\n'),
      ),
    );
    const list = await darwinApps({ exec, uid: 501, ...clock }).list(app);
    expect(list).toEqual([
      expect.objectContaining({ pid: 100, startedAt: clock.now() - 60_000, precisionMs: 1000 }),
    ]);
    expect(startedBefore(list ?? [], clock.now() - 30_000)).toBe(true);
    expect(startedBefore(list ?? [], clock.now() - 60_500)).toBe(false); // within a second: counts as after
  });

  it('restarts: quit app "Claude" by osascript, waits until it is gone, then open -a Claude', async () => {
    const clock = fakeClock();
    let phase: 'old' | 'quitting' | 'gone' | 'new' = 'old';
    const { exec, calls } = scriptedExec((command) => {
      if (command === 'ps') {
        // It takes a moment to quit: still listed once after being asked.
        if (phase === 'quitting') {
          phase = 'gone';
          return ok(PS_LINE(100, '10:00', '/Applications/Claude.app/Contents/MacOS/Claude'));
        }
        if (phase === 'old')
          return ok(PS_LINE(100, '10:00', '/Applications/Claude.app/Contents/MacOS/Claude'));
        if (phase === 'new')
          return ok(PS_LINE(200, '00:01', '/Applications/Claude.app/Contents/MacOS/Claude'));
        return ok('');
      }
      if (command === 'osascript') phase = 'quitting';
      if (command === 'open') phase = 'new';
      return undefined;
    });
    const result = await darwinApps({ exec, uid: 501, ...clock }).restart(app);
    expect(result).toEqual({ outcome: 'restarted', pids: [200] });
    expect(calls.filter((c) => !c.startsWith('ps'))).toEqual([
      `osascript -e quit app "Claude"`,
      'open -a Claude',
    ]);
    expect(calls.indexOf('open -a Claude')).toBeGreaterThan(
      calls.indexOf(`osascript -e quit app "Claude"`) + 1,
    );
  });

  it('does nothing when it is not running', async () => {
    const { exec, calls } = scriptedExec(() => ok(''));
    expect(await darwinApps({ exec, uid: 501, ...fakeClock() }).restart(app)).toEqual({
      outcome: 'not-running',
    });
    expect(calls).toEqual(['ps -axo pid=,ppid=,uid=,etime=,comm=']);
  });

  it('says what to do when it will not quit, and never opens it then', async () => {
    const { exec, calls } = scriptedExec((command) =>
      command === 'ps'
        ? ok(PS_LINE(100, '10:00', '/Applications/Claude.app/Contents/MacOS/Claude'))
        : undefined,
    );
    await expect(darwinApps({ exec, uid: 501, ...fakeClock() }).restart(app)).rejects.toThrow(
      /could not quit Claude Desktop: still running 15 s after it was asked to quit/,
    );
    expect(calls.some((c) => c.startsWith('open'))).toBe(false);
    const refused = scriptedExec((command) =>
      command === 'ps'
        ? ok(PS_LINE(100, '10:00', '/Applications/Claude.app/Contents/MacOS/Claude'))
        : command === 'osascript'
          ? {
              code: 1,
              stdout: '',
              stderr: 'execution error: Not authorized to send Apple events to Claude. (-1743)',
            }
          : undefined,
    );
    expect(await failure(darwinApps({ exec: refused.exec, uid: 501, ...fakeClock() }).restart(app))).toMatch(
      /could not quit Claude Desktop: execution error: Not authorized .* — quit it from its menu and open it again/,
    );
  });
});

describe('Windows: Get-Process, taskkill, start the same executable', () => {
  const EXE = 'C:\\Users\\me\\AppData\\Local\\AnthropicClaude\\app-0.9.3\\claude.exe';

  it('asks PowerShell for this session’s Claude processes, by image name without .exe', () => {
    const script = listScript(['Claude.exe']);
    expect(script).toContain("Get-Process -Name 'Claude'");
    expect(script).toContain('SessionId -eq $s');
    expect(script).toContain('ToUnixTimeMilliseconds()');
    expect(listScript(["it's.exe"])).toContain("'it''s'"); // quoted
  });

  it('restarts: closes the first-started process’s tree, ends it if it only hid, starts the same exe', async () => {
    const clock = fakeClock();
    let phase: 'old' | 'closing' | 'gone' | 'new' = 'old';
    const launches: Launch[] = [];
    const { exec, calls } = scriptedExec((command, args) => {
      if (command === 'powershell.exe') {
        if (phase === 'old' || phase === 'closing')
          return ok(`4242|${clock.now() - 60_000}|${EXE}\r\n4300|${clock.now() - 50_000}|${EXE}\r\n`);
        if (phase === 'new') return ok(`5000|${clock.now()}|${EXE}\r\n`);
        return ok('');
      }
      if (command === 'taskkill') {
        // The window's close only hides it in the tray; /F ends it.
        if (args.includes('/F')) phase = 'gone';
        else phase = 'closing';
      }
      return undefined;
    });
    const spawn = (launch: Launch) => {
      launches.push(launch);
      phase = 'new';
      return Promise.resolve(5000);
    };
    const result = await win32Apps({ exec, spawn, ...clock }).restart(app);
    expect(result).toEqual({ outcome: 'restarted', pids: [5000] });
    expect(calls.filter((c) => c.startsWith('taskkill'))).toEqual([
      'taskkill /PID 4242 /T',
      'taskkill /PID 4242 /T /F',
    ]);
    expect(launches).toEqual([{ exe: EXE, argv: [EXE] }]);
  });

  it('does not force it when closing is enough, and does nothing when it is not running', async () => {
    let phase: 'old' | 'gone' | 'new' = 'old';
    const clock = fakeClock();
    const { exec, calls } = scriptedExec((command) => {
      if (command === 'powershell.exe')
        return ok(phase === 'old' ? `4242|1|${EXE}` : phase === 'new' ? `5000|${clock.now()}|${EXE}` : '');
      if (command === 'taskkill') phase = 'gone';
      return undefined;
    });
    const spawn = () => {
      phase = 'new';
      return Promise.resolve(5000);
    };
    await win32Apps({ exec, spawn, ...clock }).restart(app);
    expect(calls.filter((c) => c.startsWith('taskkill'))).toEqual(['taskkill /PID 4242 /T']);

    const idle = scriptedExec(() => ok(''));
    expect(await win32Apps({ exec: idle.exec, spawn, ...fakeClock() }).restart(app)).toEqual({
      outcome: 'not-running',
    });
    expect(idle.calls.some((c) => c.startsWith('taskkill'))).toBe(false);
  });

  it('leaves it running, and says what to do, when it cannot tell which program it runs from', async () => {
    const { exec, calls } = scriptedExec((command) =>
      command === 'powershell.exe' ? ok('4242|1|') : undefined,
    );
    expect(await failure(win32Apps({ exec, ...fakeClock() }).restart(app))).toMatch(
      /could not see which program Claude Desktop runs from, so it was left running — quit it from its menu/,
    );
    expect(calls.some((c) => c.startsWith('taskkill'))).toBe(false);
  });
});
