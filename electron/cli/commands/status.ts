import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ServerStatus, StatusReport } from '../../../shared/status.ts';
import { wordList } from '../../../shared/word-list.ts';
import type { CliContext } from '../context.ts';
import { table } from '../output.ts';
import { quickGet } from '../quick-instance.ts';
import type { ProjectsView } from '../../../shared/schema/projects.ts';
import { ProjectRoutes } from '../../../shared/projects-api.ts';

/** ApiRoutes.status (shared/api.ts, not imported here: it loads zod, which the quick way avoids). */
export const STATUS_ROUTE = '/api/status';

export async function statusCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' } }, strict: true });
  // The quick way first (the running serve over its local socket), else the control API, else the
  // files: only what a way needs is loaded, so `status` with serve running answers in ~0.1 s.
  const quick = await quickGet(ctx.home, STATUS_ROUTE);
  const answered = isStatusReport(quick) ? quick : undefined;
  const client = answered ? undefined : (await import('../instance.ts')).InstanceClient.connect(ctx.home);
  const live = answered !== undefined || client !== undefined;
  const report: StatusReport =
    answered ??
    (client
      ? await client.status()
      : (await (await import('../offline-core.ts')).offlineStatus(ctx)).status.report());
  // Repositories' servers (switchboard projects): where each came from, who works in it; and the
  // folders editors work in that a running serve offers as projects.
  const view: ProjectsView | undefined = answered
    ? asProjectsView(await quickGet(ctx.home, ProjectRoutes.projects))
    : client
      ? await client.projects()
      : existsSync(join(ctx.home.root, 'projects.json'))
        ? await (await import('./projects.ts')).projectsViewOf(ctx, report)
        : undefined;
  const projects = view?.projects ?? [];
  const offers = view?.offers ?? [];
  if (values.json) {
    const shown = projects.length + offers.length > 0 ? { ...report, projects, offers } : report;
    ctx.output.out(JSON.stringify(shown, null, 2));
    return 0;
  }
  ctx.output.out(
    live
      ? 'Switchboard is running.'
      : 'Switchboard is not running (showing the files; start it with: switchboard serve).',
  );
  if (report.configError) {
    // A running instance keeps what it last read; the files alone have nothing to show until fixed.
    const keeps = live ? 'the last good config stays in force' : 'fix it to see and run its servers';
    ctx.output.out(`\nservers.json has errors (${keeps}):\n${report.configError}\n`);
  }
  if (report.servers.length === 0) {
    if (!report.configError)
      ctx.output.out('No servers configured. Add one with: switchboard add NAME -- COMMAND ARGS…');
    printOffered(ctx, offers);
    return 0;
  }
  const rows = [['NAME', 'STATE', 'PID', 'RESTARTS', 'TOOLS', 'DETAIL']];
  for (const s of report.servers)
    rows.push([
      s.name,
      s.state,
      s.pid?.toString() ?? '-',
      String(s.restarts),
      s.toolCount?.toString() ?? '-',
      statusDetail(s),
    ]);
  ctx.output.out(table(rows));
  const access = report.servers.filter((s) => s.access);
  if (access.length) {
    ctx.output.out('\nSandbox:');
    for (const s of access) ctx.output.out(`  ${s.name}: ${s.access ?? ''}`);
  }
  if (projects.length) {
    ctx.output.out('\nProjects (details: switchboard projects):');
    for (const p of projects)
      ctx.output.out(
        `  ${p.name}  ${p.dir}  ${p.servers.length} server(s); working in it now: ${p.activeEditors?.join(', ') || 'none seen'}`,
      );
  }
  printOffered(ctx, offers);
  return 0;
}

/** Folders an editor works in that have MCP servers, with the command that adds each. */
function printOffered(ctx: Pick<CliContext, 'output'>, offers: ProjectsView['offers']): void {
  for (const o of offers)
    ctx.output.out(
      `\nOffered: ${o.dir} has MCP servers in ${o.files.join(', ')}; add it: switchboard projects add ${o.dir}`,
    );
}

/** The running serve's own answer to GET /api/projects (read as its output, without zod). */
function asProjectsView(value: unknown): ProjectsView | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { projects, offers } = value as Partial<Record<keyof ProjectsView, unknown>>;
  return Array.isArray(projects) && Array.isArray(offers) ? (value as ProjectsView) : undefined;
}

/** The DETAIL column: what is going on, and for states that wait for a person, what to do. */
export function statusDetail(s: ServerStatus): string {
  if (s.state === 'pending-approval') return `approve with: switchboard approve ${s.name}`;
  if (s.state === 'needs-sign-in') return `sign in with: switchboard login ${s.name}`;
  if (s.toolsHeld || s.promptsHeld || s.instructionsHeld) {
    const what = wordList([
      ...(s.toolsHeld ? [`${s.toolsHeld} tool${s.toolsHeld === 1 ? '' : 's'}`] : []),
      ...(s.promptsHeld ? [`${s.promptsHeld} prompt${s.promptsHeld === 1 ? '' : 's'}`] : []),
      ...(s.instructionsHeld ? ['its instructions'] : []),
    ]);
    return `${what} changed, held back: switchboard tools ${s.name}`;
  }
  if (s.state === 'idle') return 'starts at the next request';
  // What the sandbox refused says more than "exited with code 1", and how to allow it.
  if (s.sandboxRefused && (s.state === 'running' || s.state === 'starting'))
    return s.sandboxGrant ? `${s.sandboxRefused}; in one step: ${s.sandboxGrant.command}` : s.sandboxRefused;
  if (s.state === 'backoff' && s.nextRetryAt)
    return `next start ${new Date(s.nextRetryAt).toLocaleTimeString()}${s.lastError ? ` (${s.lastError})` : ''}`;
  if (s.state === 'running' && s.since) return `up since ${new Date(s.since).toLocaleTimeString()}`;
  if (s.state === 'crash-loop' && s.sandboxGrant)
    return `${s.lastError ? `${s.lastError}; ` : ''}in one step: ${s.sandboxGrant.command}`;
  if (s.state === 'crash-loop')
    return `${s.lastError ? `${s.lastError}; ` : ''}see why: switchboard logs ${s.name}; once fixed: switchboard restart ${s.name}`;
  return s.lastError ?? '';
}

/** The shape the quick way must have to be printed; anything else goes the usual (validated) way. */
function isStatusReport(value: unknown): value is StatusReport {
  if (typeof value !== 'object' || value === null) return false;
  const report = value as Partial<StatusReport>;
  return (
    typeof report.live === 'boolean' &&
    (report.configError === null || typeof report.configError === 'string') &&
    Array.isArray(report.servers) &&
    report.servers.every((s) => typeof s === 'object' && s !== null && typeof s.name === 'string')
  );
}
