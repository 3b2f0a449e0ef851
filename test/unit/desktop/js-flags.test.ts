import { describe, expect, it } from 'vitest';
import { binFlags } from '../../../electron/cli/bin-flags.ts';
import {
  DESKTOP_JS_FLAGS,
  jsFlagsRelaunch,
  jsFlagsValue,
  NODE_ONLY_FLAGS,
  RELAUNCHED_ENV,
} from '../../../electron/desktop/js-flags.ts';

describe("the desktop app's V8 flags", () => {
  it("are serve's (bin.mjs's shebang), less the Node-only ones Electron's main process has no use for", () => {
    expect([...DESKTOP_JS_FLAGS, ...NODE_ONLY_FLAGS].sort()).toEqual([...binFlags()].sort());
    expect(DESKTOP_JS_FLAGS).toEqual(
      expect.arrayContaining(['--max-semi-space-size=2', '--expose-gc', '--max-opt=2']),
    );
    expect(jsFlagsValue()).toBe(DESKTOP_JS_FLAGS.join(' '));
  });

  const linuxStart = {
    argv: ['/opt/Switchboard/switchboard', '--hidden'],
    platform: 'linux' as const,
    env: {},
  };

  it('started without them, it relaunches itself with them once, keeping its arguments', () => {
    expect(jsFlagsRelaunch({ ...linuxStart, current: '' })).toEqual([
      '--hidden',
      `--js-flags=${jsFlagsValue()}`,
    ]);
    // The relaunched one has them: no second relaunch.
    expect(jsFlagsRelaunch({ ...linuxStart, current: jsFlagsValue() })).toBeUndefined();
    // Nor when Chromium somehow dropped them: the environment says it was relaunched already.
    expect(jsFlagsRelaunch({ ...linuxStart, current: '', env: { [RELAUNCHED_ENV]: '1' } })).toBeUndefined();
  });

  it("keeps a person's own js-flags after serve's, and a deep link in argv (Windows, Linux)", () => {
    const args = jsFlagsRelaunch({
      argv: ['C:\\Switchboard\\Switchboard.exe', '--js-flags=--trace-gc', 'switchboard://open'],
      platform: 'win32',
      current: '--trace-gc',
      env: {},
    });
    expect(args).toEqual(['switchboard://open', `--js-flags=${jsFlagsValue()} --trace-gc`]);
  });

  it('never relaunches on macOS, where a link or bundle that launched the app would be lost', () => {
    expect(jsFlagsRelaunch({ ...linuxStart, platform: 'darwin', current: '' })).toBeUndefined();
  });
});
