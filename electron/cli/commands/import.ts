import { parseArgs } from 'node:util';
import { displayText } from '../../../shared/display-text.ts';
import { syncServers } from '../../core/editors/desired.ts';
import {
  applyImport,
  importListing,
  scanImports,
  type ImportCandidate,
  type ImportScan,
} from '../../core/editors/import.ts';
import { describeForeign, differenceNote } from '../../core/editors/import-describe.ts';
import type { EditorSync } from '../../core/editors/engine.ts';
import { importDone } from '../../core/editors/report.ts';
import {
  ImportCliResultSchema,
  type ImportCandidateListing,
  type ImportCliResult,
  type ImportDone,
} from '../../../shared/editor-report.ts';
import type { EditorId } from '../../../shared/editors.ts';
import { InstanceClient } from '../instance.ts';
import { allEditors, EDITORS } from '../../core/editors/registry.ts';
import type { CliContext } from '../context.ts';
import { offlineServers } from '../offline-core.ts';
import { ask, interactive, isYes } from '../prompt.ts';
import { realCommand, resolveCommand } from '../../core/trust/resolve-command.ts';
import type { AppStateStore } from '../../core/trust/app-state.ts';
import { packageRunOf } from '../../core/store/package-run.ts';
import { editorIds, editorSync, loadCore, printFileReports } from './sync.ts';
import { EDITORS_LINE, usageOf } from '../help.ts';

const USAGE = `${usageOf('import')}\n${EDITORS_LINE}`;

/**
 * Lists the servers in editors' files that Switchboard does not manage, with exactly what each runs;
 * with --yes (or a "y" at the prompt) brings them into servers.json (literal secrets into the keychain),
 * approves them, and turns the editors' entries into managed ones (after a backup).
 */
export async function importCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'stdin' | 'keychain' | 'commandPath' | 'relay'>,
  argv: string[],
): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      from: { type: 'string', multiple: true, default: [] },
      yes: { type: 'boolean', short: 'y', default: false },
      json: { type: 'boolean', default: false },
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
  const importable = scan.candidates.filter((c) => !c.problem && !c.existing && c.duplicateOf === undefined);
  const commandPath = await ctx.commandPath();
  const lookup = { path: commandPath, pathExt: ctx.env.PATHEXT, cwd: ctx.home.root };
  if (values.json)
    return importJson(ctx, scan, from, importable, lookup, values.yes, core, engine, commandPath);
  for (const p of scan.problems) ctx.output.err(`${EDITORS[p.editor].label}: ${displayText(p.problem)}`);

  if (!scan.candidates.length) {
    ctx.output.out(
      `No servers to import (looked in: ${editors.map((e) => EDITORS[e].label).join(', ') || 'no editor found'}).`,
    );
    return scan.problems.length ? 1 : 0;
  }
  for (const c of scan.candidates) {
    ctx.output.out(`${EDITORS[c.editor].label}: "${displayText(c.entry)}" — ${verdict(c)}`);
    const note = differenceNote(c);
    if (note) ctx.output.out(`    note: ${note}`);
    for (const line of describeForeign(c)) ctx.output.out(`    ${line}`);
    if (importable.includes(c)) {
      const runs = programLine(c, lookup);
      if (runs) ctx.output.out(`    ${runs}`);
    }
  }
  const adoptable = scan.candidates.filter((c) => !c.problem);
  if (!adoptable.length) {
    ctx.output.out('\nNothing can be imported.');
    return 0;
  }
  if (!values.yes) {
    if (!interactive(ctx)) {
      ctx.output.out(
        `\nTo import ${importable.length} server(s), approve them exactly as listed and let Switchboard serve them to these editors, run: switchboard import${from ? from.map((f) => ` --from ${f}`).join('') : ''} --yes`,
      );
      return 0;
    }
    const answer = await ask(
      ctx,
      `\nImport ${importable.length} server(s) and approve them to run exactly as listed? [y/N] `,
    );
    if (!isYes(answer)) {
      ctx.output.out('Nothing imported.');
      return 0;
    }
  }
  const result = await runImport(ctx, scan, from, core, engine, commandPath);
  if (result.servers.length)
    ctx.output.out(`\nImported into ${ctx.home.serversFile} and approved: ${result.servers.join(', ')}`);
  for (const { name, what } of waitingForPin(scan, result.servers))
    ctx.output.out(
      `  ${name} runs ${what}: it starts once you approve the exact version to install: switchboard approve ${name}`,
    );
  for (const s of result.secrets)
    ctx.output.out(`  ${s.server}: ${displayText(s.key)} moved to the keychain as \${secret:${s.name}}`);
  if (result.editors.length) {
    ctx.output.out('Editors now get them through Switchboard:');
    printFileReports(ctx, result.editors);
  }
  for (const c of result.skipped)
    ctx.output.err(
      `not imported: ${EDITORS[c.editor].label} "${displayText(c.entry)}": ${displayText(c.problem)}`,
    );
  return result.editors.some((r) => r.outcome === 'failed') ? 1 : 0;
}

/** What an import done here (no serve running) uses of the core: the approvals in state.json. */
export interface ImportCommandCore {
  readonly state: Pick<AppStateStore, 'approve' | 'noteSource'>;
}

/**
 * Imports what the scan listed. A running Switchboard does it (its keychain, its approvals, its
 * editor sync, with no drift repair in between), refusing if the editors' files changed since the
 * listing; otherwise it is done here, on the files.
 */
async function runImport(
  ctx: Pick<CliContext, 'home' | 'env' | 'keychain' | 'commandPath'>,
  scan: ImportScan,
  from: EditorId[] | undefined,
  core: ImportCommandCore,
  engine: EditorSync,
  commandPath: string | undefined,
): Promise<ImportDone> {
  const running = InstanceClient.connect(ctx.home);
  if (running) return running.importEditors({ ...(from ? { from } : {}), listing: importListing(scan) });
  const result = await applyImport(scan, {
    home: ctx.home,
    env: ctx.env,
    commandPath,
    state: core.state,
    keychain: ctx.keychain(),
    engine,
    syncServers: async () => syncServers(await offlineServers(ctx)),
  });
  return importDone(result);
}

/** `import --json`: the listing as one JSON document; with --yes, the import done and what it did. */
async function importJson(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'keychain' | 'commandPath'>,
  scan: ImportScan,
  from: EditorId[] | undefined,
  importable: readonly ImportCandidate[],
  lookup: { path: string | undefined; pathExt: string | undefined; cwd: string },
  yes: boolean,
  core: ImportCommandCore,
  engine: EditorSync,
  commandPath: string | undefined,
): Promise<number> {
  const candidates = scan.candidates.map((c): ImportCandidateListing => ({
    editor: c.editor,
    label: EDITORS[c.editor].label,
    entry: c.entry,
    verdict: c.problem
      ? 'cannot-import'
      : c.existing
        ? 'already-imported'
        : c.duplicateOf !== undefined
          ? 'duplicate'
          : 'importable',
    name: c.name,
    problem: c.problem ?? null,
    duplicateOf: c.duplicateOf ?? null,
    differs: c.problem ? [] : c.differs,
    differenceNote: differenceNote(c) ?? null,
    movesToKeychain: c.problem ? [] : c.secrets.map((s) => s.key),
    shows: describeForeign(c),
    runs: importable.includes(c) ? (programLine(c, lookup) ?? null) : null,
  }));
  const problems = scan.problems.map((p) => ({ editor: p.editor, message: p.problem }));
  let imported: ImportCliResult['imported'] = null;
  let code = scan.problems.length && !scan.candidates.length ? 1 : 0;
  if (yes && scan.candidates.some((c) => !c.problem)) {
    imported = await runImport(ctx, scan, from, core, engine, commandPath);
    code = imported.editors.some((r) => r.outcome === 'failed') ? 1 : 0;
  }
  const out: ImportCliResult = { candidates, problems, imported };
  ctx.output.out(JSON.stringify(ImportCliResultSchema.parse(out), null, 2));
  return code;
}

/**
 * The program an imported server's approval pins, as `approve` shows it: the path the command is
 * found at and, for a symlink, the real file (what a retargeted link would change).
 */
function programLine(
  c: ImportCandidate,
  lookup: { path: string | undefined; pathExt: string | undefined; cwd: string },
): string | undefined {
  if (c.server?.kind !== 'stdio') return undefined;
  const found = resolveCommand(c.server.command, {
    ...lookup,
    cwd: c.server.cwd ?? lookup.cwd,
    platform: process.platform,
  });
  if (!found) return `runs: nothing yet ("${displayText(c.server.command)}" is not found on PATH)`;
  const real = realCommand(found);
  return `runs: ${displayText(found)}${real === found ? '' : ` (real file: ${displayText(real)})`}`;
}

const PACKAGE_KIND = { npm: 'an npm package', pypi: 'a PyPI package', oci: 'a container image' } as const;

/**
 * The imported servers that run a package (npx, uvx, docker run): import approves their command line
 * but pins no version, and the store runs only a pinned one, so each still waits for `approve`.
 */
function waitingForPin(scan: ImportScan, imported: readonly string[]): { name: string; what: string }[] {
  return scan.candidates.flatMap((c) => {
    if (!imported.includes(c.name) || c.existing || c.duplicateOf !== undefined) return [];
    if (c.server?.kind !== 'stdio') return [];
    const run = packageRunOf(c.server.command, c.server.args).run;
    return run && run.kind !== 'mcpb' ? [{ name: c.name, what: PACKAGE_KIND[run.kind] }] : [];
  });
}

function verdict(c: ImportCandidate): string {
  if (c.problem) return `cannot import: ${displayText(c.problem)}`;
  if (c.existing) return `already in servers.json as "${c.name}"`;
  if (c.duplicateOf !== undefined) return `same server as "${c.duplicateOf}" (imported once)`;
  const secrets = c.secrets.length
    ? `; ${c.secrets.map((s) => displayText(s.key)).join(', ')} move${c.secrets.length === 1 ? 's' : ''} to the keychain`
    : '';
  return `imports as "${c.name}"${secrets}`;
}
