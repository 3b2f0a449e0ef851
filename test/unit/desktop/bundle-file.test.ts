import { describe, expect, it } from 'vitest';
import { bundleFileFromArgv, bundleOpenPlan } from '../../../electron/desktop/bundle-file.ts';

describe('an MCP bundle opened with the desktop app', () => {
  it('is found among the launch arguments, never the program itself or a flag', () => {
    expect(bundleFileFromArgv(['/opt/Switchboard/switchboard', '/home/you/Downloads/weather.mcpb'])).toBe(
      '/home/you/Downloads/weather.mcpb',
    );
    expect(bundleFileFromArgv(['C:\\Switchboard.exe', '--flag', 'C:\\Users\\you\\x.MCPB'])).toBe(
      'C:\\Users\\you\\x.MCPB',
    );
    expect(bundleFileFromArgv(['/x/old.mcpb'])).toBeUndefined();
    expect(bundleFileFromArgv(['app', '--not=a.mcpb', 'switchboard://open'])).toBeUndefined();
  });

  it("takes the file:// URL a Linux file manager passes for the desktop entry's %U as its path", () => {
    expect(bundleFileFromArgv(['switchboard', 'file:///home/you/Down%20loads/weather.mcpb'])).toBe(
      '/home/you/Down loads/weather.mcpb',
    );
    // A file on another host, or a link of another scheme, is not a bundle to open.
    expect(bundleFileFromArgv(['switchboard', 'file://elsewhere/share/weather.mcpb'])).toBeUndefined();
    expect(bundleFileFromArgv(['switchboard', 'https://example.com/weather.mcpb'])).toBeUndefined();
  });

  it('is added at once only when it has nothing to ask', () => {
    expect(bundleOpenPlan({})).toBe('add');
    expect(bundleOpenPlan({ dir: { required: true, default: '~' } })).toBe('add');
    expect(bundleOpenPlan({ key: { required: true, default: undefined } })).toBe('ask');
  });
});
