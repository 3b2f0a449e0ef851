import { isRemote, type ServerConfig } from '../../shared/schema/servers.ts';
import type { LaunchConfig } from '../../shared/schema/state.ts';
import { sandboxGaps, sandboxSupportFor } from './sandbox/support.ts';
import { findLiteralSecrets, type SecretFinding } from './secrets/detect.ts';
import { fingerprintOf, launchConfigOf } from './trust/fingerprint.ts';
import { realCommand, resolveCommand, type CommandLookup } from './trust/resolve-command.ts';

/** One configured server as the core sees it: its config, what it would launch, and why it may not. */
export interface ServerEntry {
  name: string;
  config: ServerConfig;
  launch: LaunchConfig;
  fingerprint: string;
  /** set when the config itself is refused (a literal secret): it cannot be approved or run as is */
  refusal: string | undefined;
}

export function serverEntry(
  name: string,
  config: ServerConfig,
  lookup: (cwd: string | undefined) => CommandLookup,
): ServerEntry {
  const where = lookup(isRemote(config) ? undefined : config.cwd);
  const resolved = isRemote(config) ? undefined : resolveCommand(config.command, where);
  const gaps = isRemote(config)
    ? []
    : sandboxGaps(config.sandbox, sandboxSupportFor(where.platform, where.path));
  const launch = launchConfigOf(
    config,
    resolved,
    resolved === undefined ? undefined : realCommand(resolved),
    gaps,
  );
  const findings = findLiteralSecrets(config);
  const refusal =
    findings.length === 0
      ? undefined
      : findings
          .map(
            (f) =>
              `${secretPlace(f)} holds a literal secret (${f.reason}); ` +
              `move it to the keychain: switchboard secret move ${name} ${f.key}`,
          )
          .join('; ');
  return { name, config, launch, fingerprint: fingerprintOf(launch), refusal };
}

/** "env GITHUB_TOKEN", "header Authorization", "args[3]", "url" */
function secretPlace(finding: SecretFinding): string {
  if (finding.field === 'env') return `env ${finding.key}`;
  if (finding.field === 'headers') return `header ${finding.key}`;
  return finding.key;
}
