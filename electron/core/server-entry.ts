import { isRemote, type ServerConfig } from '../../shared/schema/servers.ts';
import type { LaunchConfig } from '../../shared/schema/state.ts';
import type { PackagePin } from '../../shared/store.ts';
import { sandboxGaps, sandboxSupportFor } from './sandbox/support.ts';
import { findLiteralSecrets, type SecretFinding } from './secrets/detect.ts';
import { bundleRunOf, packageRunOf, type PackageRunResult } from './store/package-run.ts';
import { canonicalJson } from './trust/canonical-json.ts';
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
  /**
   * what its command line asks a package runner for (npx, uvx, docker run): a run the store pins, a
   * reason it cannot, or neither (a program run as it is)
   */
  packageRun: PackageRunResult;
  /** the launch config without its package pin: what servers.json alone decides */
  configFingerprint: string;
}

/**
 * `approved`: the launch config of the server's approval, if any. A package run keeps the package its
 * approval pinned while servers.json still says what was approved; otherwise it has no pin (and asks).
 */
export function serverEntry(
  name: string,
  config: ServerConfig,
  lookup: (cwd: string | undefined) => CommandLookup,
  approved?: LaunchConfig,
  storeRoot?: string,
): ServerEntry {
  const where = lookup(isRemote(config) ? undefined : config.cwd);
  const resolved = isRemote(config) ? undefined : resolveCommand(config.command, where);
  // What this machine cannot enforce of its sandbox: part of what is approved (sandbox/support.ts).
  const gaps = isRemote(config)
    ? []
    : sandboxGaps(config.sandbox, sandboxSupportFor(where.platform, where.path));
  const written = launchConfigOf(
    config,
    resolved,
    resolved === undefined ? undefined : realCommand(resolved),
    gaps,
  );
  const packageRun = isRemote(config)
    ? {}
    : ((storeRoot === undefined ? undefined : bundleRunOf(config.args, storeRoot)) ??
      packageRunOf(config.command, config.args));
  const pin = approved?.package;
  const keepsPin =
    packageRun.run !== undefined &&
    pin !== undefined &&
    canonicalJson({ ...approved, package: undefined }) === canonicalJson(written) &&
    !isRemote(config) &&
    sameRuntime(pin, where);
  const launch = keepsPin ? { ...written, package: pin } : written;
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
  return {
    name,
    config,
    launch,
    fingerprint: fingerprintOf(launch),
    refusal,
    packageRun,
    configFingerprint: fingerprintOf(written),
  };
}

/** "env GITHUB_TOKEN", "header Authorization", "args[3]", "url" */
function secretPlace(finding: SecretFinding): string {
  if (finding.field === 'env') return `env ${finding.key}`;
  if (finding.field === 'headers') return `header ${finding.key}`;
  return finding.key;
}

/**
 * The program a pin runs with (node for npm) is still the one found on PATH: another Node earlier on
 * PATH (or a symlink retargeted by an upgrade) asks again, as a changed command does.
 */
function sameRuntime(pin: PackagePin, lookup: CommandLookup): boolean {
  if (pin.kind !== 'npm' || pin.runtime === undefined) return true;
  const node = resolveCommand('node', lookup);
  if (node !== pin.runtime) return false;
  const real = realCommand(node);
  return (real === node ? undefined : real) === pin.runtimeReal;
}
