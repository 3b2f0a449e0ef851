import { parseArgs } from 'node:util';
import { DEFAULT_BRIDGE_PORT } from '../../../shared/bridge.ts';
import type { EditorId } from '../../../shared/editors.ts';
import { TokenStore } from '../../core/tokens/token-store.ts';
import { changeExclusions, syncServers } from '../../core/editors/desired.ts';
import { EditorSync } from '../../core/editors/engine.ts';
import { allEditors, isEditorId } from '../../core/editors/registry.ts';
import { describeFileReport, fileReport, type EditorReport } from '../../core/editors/report.ts';
import {
  SyncCliResultSchema,
  type EditorFileReport,
  type SyncCliResult,
} from '../../../shared/editor-report.ts';
import { UserError } from '../../core/errors.ts';
import type { AppStateStore } from '../../core/trust/app-state.ts';
import type { CliContext } from '../context.ts';
import { findInstance } from '../../core/instance-file.ts';
import { InstanceClient } from '../instance.ts';
import { offlineServers } from '../offline-core.ts';
import type { ServerConfig } from '../../core/services/server-config.ts';
import { displayLines, displayText } from '../../../shared/display-text.ts';
import { UsageError } from '../output.ts';
import { EDITORS_LINE, usageOf } from '../help.ts';

const USAGE = `${usageOf('sync')}\n${EDITORS_LINE}`;

/**
 * Writes managed entries (URL + this editor's bridge token, or the relay for Claude Desktop) for every
 * approved, enabled server into every detected editor's settings file, and says per editor what it did:
 * written, up to date, skipped (and why) or failed. Works on the files whether or not `switchboard
 * serve` runs; the bridge port comes from the running instance, else state.json, else the default.
 */
export async function syncCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'commandPath' | 'relay'>,
  argv: string[],
): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      editor: { type: 'string', multiple: true, default: [] },
      all: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      exclude: { type: 'string', multiple: true, default: [] },
      include: { type: 'string', multiple: true, default: [] },
    },
    strict: true,
  });
  const named = editorIds(values.editor, '--editor', USAGE);
  if ((values.exclude.length || values.include.length) && !named) {
    throw new UsageError(`--exclude and --include need --editor E\n${USAGE}`);
  }
  if (values.all && named) throw new UsageError(`--all and --editor exclude each other\n${USAGE}`);
  const core = await loadCore(ctx);
  const engine = editorSync(ctx, core);
  const dryRun = values['dry-run'];
  // --all: every installed editor, as if each were named (which turns sync back on for it).
  const editors = values.all
    ? allEditors()
        .map((a) => a.id)
        .filter((id) => engine.detected(id))
    : named;
  if (editors?.length === 0) {
    if (values.json) printJson(ctx, { dryRun, throughInstance: false, editors: [] });
    else ctx.output.out(noEditorFound(engine));
    return 0;
  }
  // A name that is no server here would be stored and silently do nothing (a typo, a removed server).
  // --include may still name one an earlier --exclude left behind: that takes it off the list.
  const servers = core.servers.entries();
  const stale = new Set((named ?? []).flatMap((e) => core.state.editorSettings(e).exclude));
  const unknown = [
    ...values.exclude.filter((n) => !servers.has(n)),
    ...values.include.filter((n) => !servers.has(n) && !stale.has(n)),
  ];
  if (unknown.length)
    throw new UsageError(
      `no server named ${unknown.map((n) => `"${displayText(n)}"`).join(', ')} in ${ctx.home.serversFile}` +
        (servers.size ? ` (its servers: ${[...servers.keys()].join(', ')})` : ' (it has no servers)'),
    );
  // A running Switchboard does the writing: it owns the editors' entries (in the desktop app the
  // relay command is the app's own), and would otherwise see ours as drift and write its own back.
  // It records the exclusions too: state.json has one writer while it runs.
  const running = dryRun ? undefined : InstanceClient.connect(ctx.home);
  const selection =
    values.exclude.length || values.include.length
      ? { exclude: values.exclude, include: values.include }
      : undefined;
  let reports: EditorFileReport[];
  if (running) {
    const results = [];
    for (const e of editors ?? [undefined]) results.push(await running.syncEditors(e, selection));
    reports = results.flatMap((r) => r.reports);
  } else {
    if (!dryRun && selection)
      for (const editor of named ?? [])
        core.state.updateEditorSettings(editor, (s) => changeExclusions(s, selection));
    reports = (await engine.sync(syncServers(core), { editors, dryRun })).map(fileReport);
  }
  if (values.json) {
    printJson(ctx, { dryRun, throughInstance: running !== undefined, editors: reports });
  } else {
    if (running) ctx.output.out('Switchboard is running: it synced the editors.');
    printFileReports(ctx, reports, dryRun);
    // Nothing installed at all (rather than installed and switched off, or failing): say where we looked.
    if (!editors && reports.every((r) => r.reason === 'not-installed')) ctx.output.out(noEditorFound(engine));
  }
  // An installed editor left without the servers (its file does not parse, or writing failed) is
  // something to fix: scripts see it in the exit code. Switched off or not installed is not.
  return reports.some((r) => r.outcome === 'failed' || r.reason === 'unparseable') ? 1 : 0;
}

function printJson(ctx: Pick<CliContext, 'output'>, result: SyncCliResult): void {
  ctx.output.out(JSON.stringify(SyncCliResultSchema.parse(result), null, 2));
}

function noEditorFound(engine: EditorSync): string {
  return `No editor found. Looked for: ${allEditors()
    .map((a) => `${a.label} (${engine.detectPathOf(a.id)})`)
    .join(', ')}.\nTo write one anyway: switchboard sync --editor E`;
}

/** servers.json and state.json (`cli/offline-core.ts`, a composition root), refused when servers.json has errors. */
export async function loadCore(
  ctx: Pick<CliContext, 'home' | 'env' | 'commandPath'>,
): ReturnType<typeof offlineServers> {
  return refuseProblems(ctx, await offlineServers(ctx));
}

/** The parts, unless servers.json has errors: then editors are left as they are. */
export function refuseProblems<T extends { servers: Pick<ServerConfig, 'configProblems' | 'configError'> }>(
  ctx: Pick<CliContext, 'home'>,
  core: T,
): T {
  if (core.servers.configProblems().length) {
    throw new UserError(
      `${ctx.home.serversFile} has errors, so editors were left as they are:\n${core.servers.configError() ?? ''}`,
      {
        hint: 'fix the file, then sync again',
      },
    );
  }
  return core;
}

/** What the CLI's editor sync uses of the core: the editor settings, approvals and port in state.json. */
export interface CliEditorSyncCore {
  readonly state: Pick<AppStateStore, 'bridgePort' | 'editors' | 'updateEditorSettings' | 'updateEditors'>;
}

/** The bridge port editors must point at: the running instance's, else the configured one, else the default. */
export function bridgePort(
  ctx: Pick<CliContext, 'home'>,
  core: { readonly state: Pick<AppStateStore, 'bridgePort'> },
): number {
  return findInstance(ctx.home)?.port ?? core.state.bridgePort() ?? DEFAULT_BRIDGE_PORT;
}

export function editorSync(
  ctx: Pick<CliContext, 'home' | 'env' | 'relay'>,
  core: CliEditorSyncCore,
): EditorSync {
  return new EditorSync({
    home: ctx.home,
    env: ctx.env,
    state: core.state,
    tokens: new TokenStore(ctx.home.tokens),
    port: bridgePort(ctx, core),
    ...(ctx.relay ? { relay: ctx.relay } : {}),
  });
}

export function editorIds(values: string[], flag: string, usage: string): EditorId[] | undefined {
  if (values.length === 0) return undefined;
  const ids: EditorId[] = [];
  for (const value of values) {
    if (!isEditorId(value)) throw new UsageError(`${flag}: unknown editor "${value}"\n${usage}`);
    if (!ids.includes(value)) ids.push(value);
  }
  return ids;
}

export function printReports(
  ctx: Pick<CliContext, 'output'>,
  reports: readonly EditorReport[],
  dryRun = false,
): void {
  printFileReports(ctx, reports.map(fileReport), dryRun);
}

/** Each editor's report in words; a dry run's diffs after them. */
export function printFileReports(
  ctx: Pick<CliContext, 'output'>,
  reports: readonly EditorFileReport[],
  dryRun = false,
): void {
  for (const r of reports) for (const line of describeFileReport(r)) ctx.output.out(line);
  if (dryRun) {
    // The engine hides tokens and literal secrets in the diff (secrets/diff-secrets.ts).
    // Escaped too: an editor file's own text could carry control or bidi characters to the terminal.
    for (const r of reports) if (r.diff) ctx.output.out('\n' + displayLines(r.diff.trimEnd()).join('\n'));
    if (!reports.some((r) => r.diff)) ctx.output.out('Nothing to change.');
    else ctx.output.out('\n(dry run: nothing was written)');
  }
}
