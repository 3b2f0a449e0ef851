import { displayText } from '../../../shared/display-text.ts';
import { parseArgs } from 'node:util';
import { FingerprintSchema, type ApprovalPreview, type ApproveCliResult } from '../../../shared/api.ts';
import type { ServerSourceSchema, SwitchboardEdit } from '../../../shared/schema/state.ts';
import type { z } from 'zod';
import { UsageError } from '../output.ts';
import { usageOf } from '../help.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { withWaitingLine } from '../waiting-line.ts';
import { offlineApprovals } from '../offline-core.ts';
import { ask, interactive, isYes } from '../prompt.ts';

const APPROVE_USAGE = usageOf('approve');
const UPDATE_USAGE = usageOf('update');

const SOURCES: Record<z.infer<typeof ServerSourceSchema>, string> = {
  'hand-edit': 'servers.json, edited by hand or by another program',
  cli: 'the switchboard command line',
  import: 'imported from an editor’s config',
  'install-link': 'an install link',
  catalog: 'the MCP Registry catalog',
  ui: 'the Switchboard window',
};

/** What Switchboard changed in an entry at the person's command, after its source wrote it. */
const EDITS: Record<SwitchboardEdit, string> = {
  'sandbox-grant': 'a path added to its sandbox (switchboard grant)',
  'secret-move': 'a pasted secret moved to the keychain (switchboard secret move)',
};

/**
 * Shows exactly what approving NAME allows, then approves exactly that (its fingerprint): a change to
 * the config in between is refused. A person confirms at a [y/N] prompt; a script passes --yes (approve
 * what this run shows) or --fingerprint (approve only the config that was shown earlier, e.g. by a
 * run without either). Without a terminal and without either flag nothing is approved (exit 1).
 * --json never asks: it prints {approved, preview} (ApproveCliResultSchema) and approves only with
 * --yes or --fingerprint.
 */
export function approveCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'stdin' | 'keychain' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
): Promise<number> {
  return reviewAndApprove(ctx, argv, false);
}

/**
 * `update NAME`: resolves the server's package again (the newest release servers.json allows), shows
 * what changed since the approved version, and approves exactly that, as `approve` does.
 */
export function updateCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'stdin' | 'keychain' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
): Promise<number> {
  return reviewAndApprove(ctx, argv, true);
}

async function reviewAndApprove(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'stdin' | 'keychain' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
  fresh: boolean,
): Promise<number> {
  const usage = fresh ? UPDATE_USAGE : APPROVE_USAGE;
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      yes: { type: 'boolean', short: 'y' },
      fingerprint: { type: 'string' },
      'allow-scripts': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [name] = positionals;
  if (!name || positionals.length !== 1 || (values.yes && values.fingerprint !== undefined))
    throw new UsageError(usage);
  if (values.fingerprint !== undefined && !FingerprintSchema.safeParse(values.fingerprint).success)
    throw new UsageError(`--fingerprint takes the 64 hex digits shown with the configuration\n${usage}`);

  const client = InstanceClient.connect(ctx.home);
  const trust = client
    ? { review: () => client.review(name, fresh), approve: (fp: string) => client.approve(name, fp) }
    : await offlineTrust(ctx, name, fresh);
  if (!values.json && fresh) ctx.output.err(`Checking ${name}'s package for a newer release…`);
  // Resolving a package at its registry takes seconds (npm, uv, an image registry): say so meanwhile.
  const shown = await withWaitingLine(
    process.stderr,
    `Resolving ${name}'s package for its approval (exact version, dependencies)…`,
    () => trust.review(),
  );
  const json = (approved: boolean) => {
    const result: ApproveCliResult = { approved, preview: shown };
    ctx.output.out(JSON.stringify(result, null, 2));
  };
  if (!values.json) show(ctx, shown);
  if (fresh && shown.package?.changes?.[0]?.startsWith('nothing:')) {
    if (values.json) json(false);
    else ctx.output.out(`\n${name} is up to date: nothing to update.`);
    return 0;
  }
  // The plain fingerprint keeps install scripts off; --allow-scripts approves the one that runs them.
  const shownFingerprint =
    values['allow-scripts'] && shown.package?.scriptsFingerprint
      ? shown.package.scriptsFingerprint
      : shown.fingerprint;
  if (values['allow-scripts'] && !shown.package?.scriptsFingerprint)
    throw new UsageError(`--allow-scripts: ${name}'s packages have no install scripts`);

  let fingerprint = values.fingerprint;
  if (fingerprint === undefined && values.yes) fingerprint = shownFingerprint;
  if (fingerprint === undefined && !values.json && interactive(ctx)) {
    const what = shownFingerprint === shown.fingerprint ? '' : ', install scripts included';
    const answer = await ask(ctx, `\nApprove "${name}" to run exactly this${what}? [y/N] `);
    if (!isYes(answer)) {
      ctx.output.out('Not approved.');
      return 1;
    }
    fingerprint = shownFingerprint;
  }
  if (fingerprint === undefined) {
    if (values.json) json(false);
    ctx.output.err(
      `\nNot approved: nobody confirmed it. To approve exactly what is shown above, run:\n` +
        `  switchboard ${fresh ? 'update' : 'approve'} ${name} --fingerprint ${shownFingerprint}\n` +
        `(or run it in a terminal and answer y; --yes approves whatever a run shows, for scripts)`,
    );
    return 1;
  }
  await trust.approve(fingerprint);
  if (values.json) {
    json(true);
    return 0;
  }
  ctx.output.out(
    `\nApproved "${name}". ${client ? 'Starting it now.' : 'It will start with the next `switchboard serve`.'}`,
  );
  ctx.output.out('Any change to this config will ask again.');
  return 0;
}

/** Review and approve on the files, with no Switchboard running. */
async function offlineTrust(
  ctx: Pick<CliContext, 'home' | 'env' | 'keychain' | 'commandPath' | 'tokenFiles'>,
  name: string,
  fresh: boolean,
) {
  const { approvals } = await offlineApprovals(ctx);
  return {
    review: () => approvals.preview(name, { fresh }),
    approve: (fingerprint: string) => Promise.resolve(approvals.approve(name, fingerprint, 'cli')),
  };
}

/** Everything the approval covers, as the UI's approval card shows it (lines are display-safe). */
function show(ctx: Pick<CliContext, 'output'>, shown: ApprovalPreview): void {
  const status =
    shown.state === 'pending-approval'
      ? 'waiting for approval'
      : shown.state === 'denied'
        ? 'denied'
        : `now ${shown.state}`;
  // A project's server: the repository's file said it, not the person.
  const from = shown.origin
    ? `the project "${shown.origin.project}", ${displayText(shown.origin.file)} (sha256 ${shown.origin.digest})`
    : SOURCES[shown.source] +
      (shown.edits.length
        ? `, then changed by Switchboard at your command: ${shown.edits.map((e) => EDITS[e]).join('; ')}`
        : '');
  ctx.output.out(
    `"${shown.name}" (${status}; from ${from}) would ${shown.transport === 'http' ? 'connect to' : 'run exactly'}:`,
  );
  for (const line of shown.lines) ctx.output.out(`  ${line}`);
  for (const line of shown.willNotStart) ctx.output.out(`  ! ${line}`);
  // Approving is of what runs; the value is a secret it gets once given (before or after approving).
  for (const { request, secret } of shown.origin?.needs ?? [])
    ctx.output.out(
      `  ! WILL NOT START until you give it the value its file asks for as ${displayText(request)} (kept as its own keychain secret "${secret}"): printf %s VALUE | switchboard projects give ${shown.name} '${displayText(request)}'`,
    );
  if (shown.packageNote) ctx.output.out(`  ! ${shown.packageNote}`);
  const pkg = shown.package;
  if (pkg) {
    ctx.output.out('It runs this package, installed in Switchboard’s store:');
    for (const line of pkg.lines) ctx.output.out(`  ${line}`);
    if (pkg.changes) {
      ctx.output.out('Changed since the approved version:');
      for (const line of pkg.changes) ctx.output.out(`  ${line}`);
    }
    for (const line of pkg.notes) ctx.output.out(`  ! ${line}`);
    if (pkg.scriptsFingerprint)
      ctx.output.out(
        `To let the install scripts run too: --allow-scripts (fingerprint ${pkg.scriptsFingerprint})`,
      );
  }
  if (shown.access.length) {
    const unsandboxed = shown.access[0]?.startsWith('NOT sandboxed') ?? false;
    ctx.output.out(unsandboxed ? 'It is not sandboxed:' : 'In its sandbox it:');
    for (const line of shown.access) ctx.output.out(`  ${unsandboxed ? '! ' : ''}${line}`);
  }
  if (shown.references.length) {
    ctx.output.out('It passes on:');
    for (const line of shown.references) ctx.output.out(`  ! ${line}`);
  }
  ctx.output.out(`Fingerprint: ${shown.fingerprint}`);
}

export async function denyCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'keychain' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
): Promise<number> {
  const name = singleName(argv, 'deny');
  const client = InstanceClient.connect(ctx.home);
  if (client) await client.action(name, 'deny');
  else (await offlineApprovals(ctx)).approvals.deny(name);
  ctx.output.out(`Denied "${name}": it will not run until its config changes (or you approve it).`);
  return 0;
}

export function singleName(argv: string[], command: string): string {
  if (argv.length !== 1 || !argv[0] || argv[0].startsWith('-'))
    throw new UsageError(`usage: switchboard ${command} NAME`);
  return argv[0];
}
