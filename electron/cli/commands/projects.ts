import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import type { ProjectOffer, ProjectsView, ProjectView } from '../../../shared/schema/projects.ts';
import { DEFAULT_BRIDGE_PORT } from '../../../shared/api.ts';
import { syncClaudeProjects } from '../../core/projects/claude-code-projects.ts';
import type { StatusReport } from '../../../shared/status.ts';
import { ProjectService } from '../../core/projects/project-service.ts';
import { requestSecretName } from '../../core/projects/project-servers.ts';
import { addProject, removeProject } from '../../core/projects/projects-file.ts';
import { checkGive, giveValue, valueSecretsOf } from '../../core/projects/project-give.ts';
import { projectsView } from '../../core/projects/projects-view.ts';
import { InstanceClient } from '../instance.ts';
import type { ServerEntry } from '../../core/server-entry.ts';
import type { AppStateStore } from '../../core/trust/app-state.ts';
import { UserError } from '../../core/errors.ts';
import type { CliContext } from '../context.ts';
import { usageOf } from '../help.ts';
import { UsageError } from '../output.ts';
import { offlineStatus } from '../offline-core.ts';

const USAGE = usageOf('projects');

/**
 * `switchboard projects [list] | add DIR [--name NAME] | rm DIR|NAME`: the folders whose committed
 * MCP files Switchboard reads. A running serve follows projects.json and the files itself.
 */
export async function projectsCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'stdin' | 'keychain' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean', default: false }, name: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const [sub = 'list', target, ...extra] = positionals;
  if (sub === 'give') return give(ctx, target, extra, values.json);
  if (extra.length > 0) throw new UsageError(USAGE);
  const service = () => new ProjectService(ctx.home.root);
  switch (sub) {
    case 'list': {
      if (target !== undefined) throw new UsageError(USAGE);
      const view = await projectsViewOf(ctx);
      if (values.json) ctx.output.out(JSON.stringify(view, null, 2));
      else {
        printProjects(ctx, view.projects);
        printOffers(ctx, view.offers);
      }
      return 0;
    }
    case 'add': {
      if (target === undefined) throw new UsageError(USAGE);
      const project = addProject(service().file, target, {
        ...(values.name === undefined ? {} : { name: values.name }),
        now: Date.now(),
        userHome: ctx.env.HOME ?? homedir(),
        switchboardHome: ctx.home.root,
      });
      const projects = service();
      // Its servers start with no values: any left under their secrets' names go (project-give.ts).
      const client = InstanceClient.connect(ctx.home);
      for (const secret of valueSecretsOf(projects, project.name)) {
        try {
          if (client) await client.deleteSecret(secret);
          else await ctx.keychain().delete(secret);
        } catch {
          // none there (serve answers 404), or no keychain now: then nothing can read one either
        }
      }
      const core = await offlineStatus(ctx, projects);
      // Claude Code stops running the folder's .mcp.json servers itself from now on.
      claudeInStep(ctx, core, projects);
      const info = projectsView({
        service: projects,
        home: ctx.home,
        servers: core.status.report().servers,
        offers: [],
      }).projects.find((p) => p.name === project.name);
      if (values.json) ctx.output.out(JSON.stringify({ project: info }, null, 2));
      else {
        ctx.output.out(`Added the project "${project.name}" (${project.dir}).`);
        if (info) printProjects(ctx, [info]);
      }
      return 0;
    }
    case 'rm':
    case 'remove': {
      if (target === undefined) throw new UsageError(USAGE);
      // Loaded with the project, then again without it: its servers' approvals are forgotten (a
      // running serve, which follows projects.json, also stops them).
      const projects = service();
      const core = await offlineStatus(ctx, projects);
      const gone = removeProject(projects.file, target);
      if (!gone) throw new UserError(`no project "${target}"`, { hint: 'see: switchboard projects' });
      // The values the person gave its servers go with it.
      const client = InstanceClient.connect(ctx.home);
      for (const [server, requests] of Object.entries(gone.given))
        for (const request of requests) {
          const secret = requestSecretName(server, request);
          if (client) await client.deleteSecret(secret).catch(() => {});
          else await ctx.keychain().delete(secret);
        }
      projects.scan();
      core.servers.load();
      // Claude Code's per-project entries of it go too.
      claudeInStep(ctx, core, projects);
      if (values.json) ctx.output.out(JSON.stringify({ removed: gone }, null, 2));
      else
        ctx.output.out(
          `Removed the project "${gone.name}": its servers stop, their approvals are forgotten.`,
        );
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
}

/**
 * `projects give SERVER REQUEST`: the value (stdin) a project server's file asks for as REQUEST
 * (`${GITHUB_TOKEN}`), kept in the keychain as a secret of that server's own, which its approval
 * shows passed on; once approved it starts with it.
 */
async function give(
  ctx: Pick<CliContext, 'home' | 'output' | 'stdin' | 'keychain'>,
  server: string | undefined,
  rest: string[],
  json: boolean,
): Promise<number> {
  const [request, ...extra] = rest;
  if (server === undefined || request === undefined || extra.length > 0) throw new UsageError(USAGE);
  const service = new ProjectService(ctx.home.root);
  checkGive(service, server, request);
  const value = (await readAll(ctx.stdin)).replace(/\r?\n$/, '');
  if (value === '')
    throw new UserError('no value on stdin', {
      hint: `pipe it in: printf %s "$VALUE" | switchboard projects give ${server} '${request}'`,
    });
  const client = InstanceClient.connect(ctx.home);
  const { secret } = await giveValue({
    service,
    server,
    request,
    value,
    setSecret: (name, v) => (client ? client.setSecret(name, v) : ctx.keychain().set(name, v)),
  });
  if (json) ctx.output.out(JSON.stringify({ server, request, secret }, null, 2));
  else
    ctx.output.out(
      `Stored the value for ${request} as the keychain secret "${secret}" (${server}'s own). It starts once approved (if it is not yet: switchboard approve ${server})`,
    );
  return 0;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Claude Code's per-project settings in step with the projects and approvals, when no serve runs
 * (a running serve follows projects.json and does it itself, with its own port).
 */
function claudeInStep(
  ctx: Pick<CliContext, 'home' | 'env'>,
  core: {
    readonly state: Pick<AppStateStore, 'read' | 'bridgePort' | 'editorSettings'>;
    readonly servers: { entries(): ReadonlyMap<string, ServerEntry> };
  },
  projects: ProjectService,
): void {
  if (InstanceClient.connect(ctx.home)) return;
  const { approvals } = core.state.read();
  syncClaudeProjects({
    home: ctx.home,
    env: ctx.env,
    port: core.state.bridgePort() ?? DEFAULT_BRIDGE_PORT,
    projects,
    discovery: () => core.state.editorSettings('claude-code').discovery === true,
    approved: (name) => {
      const fingerprint = core.servers.entries().get(name)?.fingerprint;
      return fingerprint !== undefined && approvals[name]?.fingerprint === fingerprint;
    },
  });
}

/**
 * The projects view (projects-view.ts): the running serve's, with the folders it offers now; without
 * one, from the files (no editor is connected, so nothing is offered).
 */
export async function projectsViewOf(
  ctx: Pick<CliContext, 'home' | 'env' | 'commandPath' | 'tokenFiles'>,
  report?: StatusReport,
): Promise<ProjectsView> {
  const client = InstanceClient.connect(ctx.home);
  if (client) return client.projects();
  const service = new ProjectService(ctx.home.root);
  if (service.projects().length === 0) return { projects: [], offers: [] };
  const status = report ?? (await offlineStatus(ctx)).status.report();
  return projectsView({ service, home: ctx.home, servers: status.servers, offers: [] });
}

/** The folders an editor works in that have MCP files, with the command that adds each. */
export function printOffers(ctx: Pick<CliContext, 'output'>, offers: readonly ProjectOffer[]): void {
  if (offers.length === 0) return;
  ctx.output.out('\nFolders your editors work in that have MCP servers (not projects yet):');
  for (const o of offers)
    ctx.output.out(
      `  ${o.dir}  in ${o.files.join(', ')} (${o.editors.join(', ')}); add it: switchboard projects add ${o.dir}`,
    );
}

function printProjects(ctx: Pick<CliContext, 'output'>, infos: readonly ProjectView[]): void {
  if (infos.length === 0) {
    ctx.output.out('No projects. Add a repository with: switchboard projects add DIR');
    return;
  }
  for (const p of infos) {
    ctx.output.out(`\n${p.name}  ${p.dir}  (editors working in it reach its servers on ${p.endpoint})`);
    ctx.output.out(
      `  editors set up for it: ${p.editors.join(', ') || 'none'}; working in it now: ${p.activeEditors?.join(', ') || 'none seen in the last 10 minutes'}`,
    );
    for (const f of p.files)
      ctx.output.out(`  ${f.file}  sha256:${f.digest}${f.problem ? `  (${f.problem})` : ''}`);
    if (p.servers.length === 0) ctx.output.out('  no servers in its files');
    for (const s of p.servers) {
      ctx.output.out(`  ${s.name}  ${p.states[s.name] ?? ''}  from ${s.file}`);
      if (s.problem) ctx.output.out(`    refused: ${s.problem}`);
      else if (p.states[s.name] === 'pending-approval')
        ctx.output.out(`    approve with: switchboard approve ${s.name}`);
    }
  }
}
