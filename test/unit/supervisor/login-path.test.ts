import { describe, expect, it } from 'vitest';
import {
  loginShellArgs,
  parseLoginShellOutput,
  resolveLoginPath,
  withoutNpmPath,
} from '../../../electron/core/supervisor/login-path.ts';

// The real macOS path (running the user's login shell from a GUI app) cannot run on this Linux
// machine; these tests cover the parsing and the fallbacks with an injected shell runner.

const START = '__SWITCHBOARD_PATH_START__';
const END = '__SWITCHBOARD_PATH_END__';

describe('parseLoginShellOutput', () => {
  it('takes the PATH between the markers and ignores rc-file noise around them', () => {
    const out = `Welcome to zsh!\nnvm: using node 22\n${START}/opt/homebrew/bin:/usr/bin${END}\nbye\n`;
    expect(parseLoginShellOutput(out)).toBe('/opt/homebrew/bin:/usr/bin');
  });

  it('returns null without both markers or with an empty PATH', () => {
    expect(parseLoginShellOutput('no markers here')).toBeNull();
    expect(parseLoginShellOutput(`${START}/usr/bin`)).toBeNull();
    expect(parseLoginShellOutput(`${START}${END}`)).toBeNull();
  });

  it('asks an interactive login shell to print the markers around $PATH', () => {
    const [flags, script] = loginShellArgs();
    expect(flags).toBe('-ilc');
    expect(script).toContain('"$PATH"');
    expect(script).toContain(START);
    expect(script).toContain(END);
  });
});

describe('resolveLoginPath', () => {
  it('on macOS asks $SHELL once with a timeout and returns its PATH', async () => {
    const calls: [string, string[], number][] = [];
    const path = await resolveLoginPath({
      platform: 'darwin',
      env: { SHELL: '/bin/fish', PATH: '/usr/bin:/bin' },
      timeoutMs: 1234,
      run: async (shell, args, timeout) => {
        calls.push([shell, args, timeout]);
        return `motd\n${START}/Users/me/.local/bin:/usr/bin${END}`;
      },
    });
    expect(path).toBe('/Users/me/.local/bin:/usr/bin');
    expect(calls).toEqual([['/bin/fish', loginShellArgs(), 1234]]);
  });

  it('on macOS falls back to the inherited PATH when the shell fails or prints nothing useful', async () => {
    const env = { SHELL: '/bin/zsh', PATH: '/usr/bin:/bin' };
    await expect(
      resolveLoginPath({ platform: 'darwin', env, run: async () => Promise.reject(new Error('timed out')) }),
    ).resolves.toBe('/usr/bin:/bin');
    await expect(
      resolveLoginPath({ platform: 'darwin', env, run: async () => 'zsh: no such file' }),
    ).resolves.toBe('/usr/bin:/bin');
  });

  it('elsewhere returns the inherited PATH without running a shell', async () => {
    let ran = false;
    const run = async () => {
      ran = true;
      return '';
    };
    await expect(resolveLoginPath({ platform: 'linux', env: { PATH: '/a:/b' }, run })).resolves.toBe('/a:/b');
    await expect(resolveLoginPath({ platform: 'win32', env: { PATH: 'C:\\x' }, run })).resolves.toBe('C:\\x');
    expect(ran).toBe(false);
  });

  it('the real runner works against a POSIX shell here (the same code macOS uses)', async () => {
    // The shell runs with this process's environment; '/fallback' comes back only if running it or
    // parsing its output failed.
    const path = await resolveLoginPath({ platform: 'darwin', env: { SHELL: '/bin/sh', PATH: '/fallback' } });
    expect(path).not.toBe('/fallback');
    expect(path).toMatch(/(^|:)\/usr\/bin(:|$)/);
  });
});

describe('withoutNpmPath (issue 24 item 10)', () => {
  const npx = { npm_command: 'exec', npm_lifecycle_event: 'npx' };
  it('drops the node_modules/.bin run npm put first when npm started Switchboard', () => {
    const path = '/p/node_modules/.bin:/node_modules/.bin:/usr/lib/npm/node-gyp-bin:/home/me/bin:/usr/bin';
    expect(withoutNpmPath({ ...npx, PATH: path }, 'linux')).toBe('/home/me/bin:/usr/bin');
  });
  it('keeps PATH as it is without npm, and a node_modules/.bin the person put later on', () => {
    const path = '/p/node_modules/.bin:/usr/bin';
    expect(withoutNpmPath({ PATH: path }, 'linux')).toBe(path);
    expect(withoutNpmPath({ ...npx, PATH: '/usr/bin:/p/node_modules/.bin' }, 'linux')).toBe(
      '/usr/bin:/p/node_modules/.bin',
    );
  });
  it('on Windows too', () => {
    expect(withoutNpmPath({ ...npx, PATH: 'C:\\p\\node_modules\\.bin;C:\\Windows' }, 'win32')).toBe(
      'C:\\Windows',
    );
  });
});
