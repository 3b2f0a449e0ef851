import { parseArgs } from 'node:util';
import { syncServers } from '../../core/editors/desired.ts';
import {
  applyImport,
  describeForeign,
  scanImports,
  type ImportCandidate,
} from '../../core/editors/import.ts';
import { allEditors, EDITORS } from '../../core/editors/registry.ts';
import { ask, canAsk } from '../ask.ts';
import type { CliContext } from '../context.ts';
import { offlineCore } from '../offline-core.ts';
import { resolveLoginPath } from '../../core/supervisor/login-path.ts';
import { editorIds, editorSync, loadCore, printReports } from './sync.ts';

const USAGE = `usage: switchboard import [--from E]… [--yes]\neditors: ${allEditors()
  .map((a) => a.id)
  .join(', ')}`;

/**
 * Lists the servers in editors' files that Switchboard does not manage, with exactly what each runs;
 * with --yes (or a "y" at the prompt) brings them into servers.json (literal secrets into the keychain),
 * approves them, and turns the editors' entries into managed ones (after a backup).
 */
export async function importCommand(ctx: CliContext, argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      from: { type: 'string', multiple: true, default: [] },
      yes: { type: 'boolean', short: 'y', default: false },
    },
    strict: true,
  });
  const from = editorIds(values.from, '--from', USAGE);
  const core = await loadCore(ctx);
  const engine = editorSync(ctx, core);
  const editors =
    from ??
    allEditors()
      .map((a) => a.id)
      .filter((id) => engine.detected(id));
  const scan = scanImports(engine, ctx.home.serversFile, editors);
  for (const p of scan.problems) ctx.output.err(`${EDITORS[p.editor].label}: ${p.problem}`);

  const importable = scan.candidates.filter((c) => !c.problem && !c.existing && c.duplicateOf === undefined);
  if (!scan.candidates.length) {
    ctx.output.out(
      `No servers to import (looked in: ${editors.map((e) => EDITORS[e].label).join(', ') || 'no editor found'}).`,
    );
    return scan.problems.length ? 1 : 0;
  }
  for (const c of scan.candidates) {
    ctx.output.out(`${EDITORS[c.editor].label}: "${c.entry}" — ${verdict(c)}`);
    for (const line of describeForeign(c)) ctx.output.out(`    ${line}`);
  }
  const adoptable = scan.candidates.filter((c) => !c.problem);
  if (!adoptable.length) {
    ctx.output.out('\nNothing can be imported.');
    return 0;
  }
  if (!values.yes) {
    if (!canAsk(ctx)) {
      ctx.output.out(
        `\nTo import ${importable.length} server(s), approve them exactly as listed and let Switchboard serve them to these editors, run: switchboard import${from ? from.map((f) => ` --from ${f}`).join('') : ''} --yes`,
      );
      return 0;
    }
    const answer = await ask(
      ctx,
      `\nImport ${importable.length} server(s) and approve them to run exactly as listed? [y/N] `,
    );
    if (!/^y(es)?$/i.test(answer.trim())) {
      ctx.output.out('Nothing imported.');
      return 0;
    }
  }
  const result = await applyImport(scan, {
    home: ctx.home,
    env: ctx.env,
    commandPath: await resolveLoginPath({ env: ctx.env }),
    state: core.state,
    keychain: ctx.keychain(),
    engine,
    syncServers: async () => syncServers(await offlineCore(ctx)),
  });
  if (result.imported.length)
    ctx.output.out(`\nImported into ${ctx.home.serversFile} and approved: ${result.imported.join(', ')}`);
  for (const s of result.secrets)
    ctx.output.out(`  ${s.server}: ${s.key} moved to the keychain as \${secret:${s.name}}`);
  if (result.reports.length) {
    ctx.output.out('Editors now get them through Switchboard:');
    printReports(ctx, result.reports);
  }
  for (const c of result.skipped)
    ctx.output.err(`not imported: ${EDITORS[c.editor].label} "${c.entry}": ${c.problem ?? ''}`);
  return result.reports.some((r) => r.status === 'failed') ? 1 : 0;
}

function verdict(c: ImportCandidate): string {
  if (c.problem) return `cannot import: ${c.problem}`;
  if (c.existing) return `already in servers.json as "${c.name}"`;
  if (c.duplicateOf !== undefined) return `same server as "${c.duplicateOf}" (imported once)`;
  const secrets = c.secrets.length
    ? `; ${c.secrets.map((s) => s.key).join(', ')} move${c.secrets.length === 1 ? 's' : ''} to the keychain`
    : '';
  return `imports as "${c.name}"${secrets}`;
}
