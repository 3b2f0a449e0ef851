import type { CliContext } from './context.ts';

/**
 * What `serve` finds of this machine when it starts (headless/serve.ts) and hands its services as
 * data, found here for the CLI's commands: once, and only when a command first asks (each loads its
 * module then, so a command that never asks never loads it).
 */
export function machineOf(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Pick<CliContext, 'commandPath' | 'tokenFiles'> {
  let commandPath: Promise<string | undefined> | undefined;
  let tokenFiles: Promise<readonly string[]> | undefined;
  return {
    commandPath: () =>
      (commandPath ??= import('../core/supervisor/login-path.ts').then((m) =>
        m.resolveLoginPath({ env, platform }),
      )),
    tokenFiles: () =>
      (tokenFiles ??= import('../core/editors/registry.ts').then((m) =>
        m.editorSettingsFiles(env, platform),
      )),
  };
}
