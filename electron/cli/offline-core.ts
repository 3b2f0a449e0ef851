import { Core } from '../core/core.ts';
import { editorSettingsFiles } from '../core/editors/registry.ts';
import { ProjectService } from '../core/projects/project-service.ts';
import { resolveLoginPath } from '../core/supervisor/login-path.ts';
import type { CliContext } from './context.ts';

/**
 * The core over the files alone, for commands run while no `switchboard serve` is running. It finds
 * commands on the same PATH `serve` uses (on macOS the login shell's), so a command's resolved path,
 * and with it the fingerprint an approval is bound to, is the same as when `serve` runs it.
 */
export async function offlineCore(
  ctx: CliContext,
  projects = new ProjectService(ctx.home.root),
): Promise<Core> {
  const core = new Core({
    home: ctx.home,
    keychain: ctx.keychain(),
    env: ctx.env,
    commandPath: await resolveLoginPath({ env: ctx.env }),
    tokenFiles: editorSettingsFiles(ctx.env, process.platform),
    // Without its projects' servers, load() would forget their approvals as removed servers.
    projects,
  });
  core.load();
  return core;
}
