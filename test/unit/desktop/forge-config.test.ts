import { FusesPlugin } from '@electron-forge/plugin-fuses';
import { FuseV1Options } from '@electron/fuses';
import { describe, expect, it } from 'vitest';
import forgeConfig from '../../../forge.config.ts';

describe('forge.config.ts fuses', () => {
  const fuses = forgeConfig.plugins?.find((p) => p instanceof FusesPlugin);

  it('keep RunAsNode on: Claude Desktop runs the relay as the app binary with ELECTRON_RUN_AS_NODE=1', () => {
    expect(fuses).toBeInstanceOf(FusesPlugin);
    if (!(fuses instanceof FusesPlugin)) return;
    expect(fuses.fusesConfig[FuseV1Options.RunAsNode]).toBe(true);
  });

  it('keep the rest locked down', () => {
    if (!(fuses instanceof FusesPlugin)) throw new Error('no FusesPlugin');
    expect(fuses.fusesConfig[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(false);
    expect(fuses.fusesConfig[FuseV1Options.EnableNodeCliInspectArguments]).toBe(false);
    expect(fuses.fusesConfig[FuseV1Options.OnlyLoadAppFromAsar]).toBe(true);
    expect(fuses.fusesConfig[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(true);
  });
});
