import { parseArgs } from 'node:util';
import { DEFAULT_BRIDGE_PORT } from '../../../shared/bridge.ts';
import type { EditorId } from '../../../shared/editors.ts';
import { TokenStore } from '../../core/bridge/tokens.ts';
import type { Core } from '../../core/core.ts';
import { syncServers } from '../../core/editors/desired.ts';
import { EditorSync, type EditorReport } from '../../core/editors/engine.ts';
import { allEditors, EDITORS, isEditorId } from '../../core/editors/registry.ts';
import { describeReports } from '../../core/editors/service.ts';
import { UserError } from '../../core/errors.ts';
import type { CliContext } from '../context.ts';
import { findInstance, InstanceClient } from '../instance.ts';
import { offlineCore } from '../offline-core.ts';
import { displayLines } from '../../../shared/display-text.ts';
import { UsageError } from '../output.ts';

const USAGE =
  'usage: switchboard sync [--editor E]… [--dry-run]\n' +
  '       switchboard sync --editor E --exclude SERVER   (that editor stops getting that server)\n' +
  '       switchboard sync --editor E --include SERVER   (undo an --exclude)\n' +
  `editors: ${allEditors()
    .map((a) => a.id)
    .join(', ')}`;

/**
 * Writes managed entries (URL + this editor's bridge token, or the relay for Claude Desktop) for every
 * approved, enabled server into every detected editor's settings file. Works on the files whether or
 * not `switchboard serve` runs; the bridge port comes from the running instance, else state.json, else
 * the default.
 */
export async function syncCommand(ctx: CliContext, argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      editor: { type: 'string', multiple: true, default: [] },
      'dry-run': { type: 'boolean', default: false },
      exclude: { type: 'string', multiple: true, default: [] },
      include: { type: 'string', multiple: true, default: [] },
    },
    strict: true,
  });
  const editors = editorIds(values.editor, '--editor', USAGE);
  if ((values.exclude.length || values.include.length) && !editors) {
    throw new UsageError(`--exclude and --include need --editor E\n${USAGE}`);
  }
  const core = await loadCore(ctx);
  const engine = editorSync(ctx, core);
  for (const editor of editors ?? []) {
    if (values['dry-run']) break;
    core.state.updateEditorSettings(editor, (s) => {
      s.exclude = [
        ...new Set([...s.exclude.filter((n) => !values.include.includes(n)), ...values.exclude]),
      ].sort();
    });
  }
  // A running Switchboard does the writing: it owns the editors' entries (in the desktop app the
  // relay command is the app's own), and would otherwise see ours as drift and write its own back.
  const running = values['dry-run'] ? undefined : InstanceClient.connect(ctx.home);
  if (running) return syncThroughInstance(ctx, running, editors);
  const reports = await engine.sync(syncServers(core), { editors, dryRun: values['dry-run'] });
  printReports(ctx, reports, values['dry-run']);
  if (!editors && !reports.some((r) => r.status !== 'skipped')) {
    ctx.output.out(
      `No editor found. Looked for: ${allEditors()
        .map((a) => `${a.label} (${engine.detectPathOf(a.id)})`)
        .join(', ')}.\nTo write one anyway: switchboard sync --editor E`,
    );
  }
  return reports.some((r) => r.status === 'failed') ? 1 : 0;
}

/** The offline core over the files; refuses while servers.json does not parse (sync would drop every entry). */
async function syncThroughInstance(
  ctx: CliContext,
  running: InstanceClient,
  editors: EditorId[] | undefined,
): Promise<number> {
  const results = await Promise.all((editors ?? [undefined]).map((e) => running.syncEditors(e)));
  const changed = results.flatMap((r) => r.changed);
  const problems = results.flatMap((r) => r.problems);
  ctx.output.out(
    changed.length
      ? `Switchboard is running and synced: ${changed.map((e) => EDITORS[e].label).join(', ')} written.`
      : 'Switchboard is running and synced: every editor was up to date.',
  );
  for (const p of problems) ctx.output.err(`${EDITORS[p.editor].label}: ${p.message}`);
  for (const n of results.flatMap((r) => r.notices))
    ctx.output.out(`${EDITORS[n.editor].label}: ${n.message}`);
  if (changed.includes('claude-desktop'))
    ctx.output.out('Claude Desktop reads its settings only when it starts: restart it to see the change.');
  return problems.length ? 1 : 0;
}

export async function loadCore(ctx: CliContext): Promise<Core> {
  const core = await offlineCore(ctx);
  const problems = core.configProblems();
  if (problems.length) {
    throw new UserError(
      `${ctx.home.serversFile} has errors, so editors were left as they are:\n${core.configError() ?? ''}`,
      {
        hint: 'fix the file, then sync again',
      },
    );
  }
  return core;
}

/** The bridge port editors must point at: the running instance's, else the configured one, else the default. */
export function bridgePort(ctx: CliContext, core: Core): number {
  return findInstance(ctx.home)?.port ?? core.state.bridgePort() ?? DEFAULT_BRIDGE_PORT;
}

export function editorSync(ctx: CliContext, core: Core): EditorSync {
  return new EditorSync({
    home: ctx.home,
    env: ctx.env,
    state: core.state,
    tokens: new TokenStore(ctx.home.tokens),
    port: bridgePort(ctx, core),
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

export function printReports(ctx: CliContext, reports: readonly EditorReport[], dryRun = false): void {
  for (const line of describeReports(reports)) ctx.output.out(line);
  if (dryRun) {
    // The engine hides tokens and literal secrets in the diff (editors/diff-secrets.ts).
    // Escaped too: an editor file's own text could carry control or bidi characters to the terminal.
    for (const r of reports) if (r.diff) ctx.output.out('\n' + displayLines(r.diff.trimEnd()).join('\n'));
    if (!reports.some((r) => r.diff)) ctx.output.out('Nothing to change.');
    else ctx.output.out('\n(dry run: nothing was written)');
  }
}
