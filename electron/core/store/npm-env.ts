/**
 * The environment npm runs in for the store: the person's own npm settings (registry, auth, cache,
 * proxy: `~/.npmrc`, `npm_config_*`) stay, but nothing of whatever project Switchboard itself was
 * started from (`npm start` exports its package's and its .npmrc's settings to children), and npm's
 * chatter (update notices, audits, funding) is off. Install scripts are decided by each command's own
 * flags, never by the environment.
 */
export function npmEnv(env: NodeJS.ProcessEnv, path: string | undefined): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const lower = key.toLowerCase();
    if (
      lower.startsWith('npm_package_') ||
      lower.startsWith('npm_lifecycle_') ||
      lower === 'npm_config_local_prefix' ||
      lower === 'npm_config_ignore_scripts' ||
      lower === 'npm_config_global' ||
      lower === 'npm_config_prefix' ||
      lower === 'npm_config_package_lock_only' ||
      lower === 'npm_config_dry_run' ||
      lower === 'npm_command' ||
      lower === 'init_cwd'
    )
      continue;
    out[key] = value;
  }
  if (path !== undefined) out.PATH = path;
  out.npm_config_update_notifier = 'false';
  out.npm_config_audit = 'false';
  out.npm_config_fund = 'false';
  out.npm_config_yes = 'true';
  return out;
}
