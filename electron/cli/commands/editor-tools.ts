import { parseArgs } from 'node:util';
import type { EditorToolsChange, EditorToolsView } from '../../../shared/editor-tools.ts';
import { serversForEditor, syncServers } from '../../core/editors/desired.ts';
import { isEditorId } from '../../core/editors/registry.ts';
import { UserError } from '../../core/errors.ts';
import { editorToolsView, listingOf } from '../../core/tools/editor-tools.ts';
import { changeEditorTools } from '../../core/tools/tool-settings.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { table, UsageError } from '../output.ts';
import { refuseProblems } from './sync.ts';
import { offlineTools } from '../offline-core.ts';

const USAGE = `usage: switchboard editors tools EDITOR [--json]
       switchboard editors tools EDITOR SERVER [--off TOOL]… [--on TOOL]…
       switchboard editors tools EDITOR SERVER --only GLOB… [--except GLOB…] | --all
       switchboard editors tools EDITOR --discovery on|off`;

/**
 * `switchboard editors tools EDITOR …`: which tools an editor gets, what they cost it (estimated
 * tokens) and how that stands against its client's limits; and changing it: tools of one server on
 * or off for that editor, a glob selection, or discovery mode. Through the running Switchboard when
 * there is one (its editors are told at once), else in state.json directly.
 */
export async function editorToolsCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      json: { type: 'boolean' },
      off: { type: 'string', multiple: true, default: [] },
      on: { type: 'string', multiple: true, default: [] },
      only: { type: 'string', multiple: true, default: [] },
      except: { type: 'string', multiple: true, default: [] },
      all: { type: 'boolean' },
      discovery: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [editor, server, ...extra] = positionals;
  if (!editor || extra.length) throw new UsageError(USAGE);
  if (!isEditorId(editor)) throw new UsageError(`unknown editor "${editor}"\n${USAGE}`);
  const changes = planChanges(server, values);

  const client = InstanceClient.connect(ctx.home);
  let view: EditorToolsView;
  if (client) {
    view = await client.editorTools(editor);
    for (const change of changes) view = await client.changeEditorTools(editor, change);
  } else {
    const core = refuseProblems(ctx, await offlineTools(ctx));
    if (server !== undefined && !core.servers.entries().has(server))
      throw new UserError(`no server named "${server}" in ${ctx.home.serversFile}`);
    for (const change of changes) changeEditorTools(core.state, editor, change);
    view = editorToolsView(editor, {
      servers: serversForEditor(editor, syncServers(core), core.state.editorSettings(editor)),
      listing: (name) => listingOf({ tools: core.tools, lifecycle: { lists: core.lists } }, name),
      filter: (name) => core.servers.entries().get(name)?.config.tools,
      settings: core.state.editorSettings(editor),
      called: new Map(), // calls are known only to a running Switchboard
    });
    if (changes.some((c) => 'discovery' in c))
      ctx.output.out(
        `Discovery mode is saved; run \`switchboard sync --editor ${editor}\` to write its file.`,
      );
  }
  if (values.json) ctx.output.out(JSON.stringify(view, null, 2));
  else show(ctx, view, server);
  return 0;
}

function planChanges(
  server: string | undefined,
  values: {
    off: string[];
    on: string[];
    only: string[];
    except: string[];
    all?: boolean | undefined;
    discovery?: string | undefined;
  },
): EditorToolsChange[] {
  const changes: EditorToolsChange[] = [];
  if (values.discovery !== undefined) {
    if (values.discovery !== 'on' && values.discovery !== 'off')
      throw new UsageError(`--discovery takes on or off\n${USAGE}`);
    changes.push({ discovery: values.discovery === 'on' });
  }
  const switches = values.off.length + values.on.length;
  const selection = values.only.length + values.except.length + (values.all ? 1 : 0);
  if ((switches || selection) && server === undefined)
    throw new UsageError(`name the server whose tools to choose\n${USAGE}`);
  if (switches && selection)
    throw new UsageError(`use --on/--off, or --only/--except/--all, not both\n${USAGE}`);
  if (values.all && (values.only.length || values.except.length))
    throw new UsageError(`--all takes no globs\n${USAGE}`);
  if (server === undefined) return changes;
  for (const tool of values.off) changes.push({ server, tool, on: false });
  for (const tool of values.on) changes.push({ server, tool, on: true });
  if (values.all) changes.push({ server, selection: null });
  else if (values.only.length || values.except.length)
    changes.push({
      server,
      selection: {
        ...(values.only.length ? { include: values.only } : {}),
        ...(values.except.length ? { exclude: values.except } : {}),
      },
    });
  return changes;
}

function show(ctx: Pick<CliContext, 'output'>, view: EditorToolsView, only: string | undefined): void {
  const { current, costs, limits } = view;
  const limit = limits.tools
    ? ` (${limits.tools.hard ? 'limit' : 'works best under'} ${limits.tools.count})`
    : '';
  ctx.output.out(
    `${view.label}${view.discovery ? ' (discovery mode: find_tools and call_tool)' : ''}: ${current.tools} tools${limit}, about ${current.tokens.toLocaleString('en')} tokens of tool definitions on every turn`,
  );
  ctx.output.out(
    `  every tool ${costs.everything.tools} (~${costs.everything.tokens} tokens) · servers' filters ${costs.serverFilters.tools} (~${costs.serverFilters.tokens}) · this selection ${costs.selection.tools} (~${costs.selection.tokens}) · discovery mode ${costs.discovery.tools} (~${costs.discovery.tokens})`,
  );
  if (limits.names) ctx.output.out(`  names: ${limits.names.what}`);
  ctx.output.out(`  called ${view.calledLastHour} of them in the last hour`);
  for (const warning of view.warnings)
    ctx.output.out(`${warning.level === 'info' ? 'note' : 'warning'}: ${warning.message}`);
  const rows = [['SERVER', 'TOOL', 'GETS IT', 'TOKENS', 'NAME IT SEES']];
  for (const server of view.servers) {
    if (only !== undefined && server.server !== only) continue;
    if (!server.known) rows.push([server.server, '(not listed yet)', '', '', '']);
    for (const tool of server.tools)
      rows.push([
        server.server,
        tool.name,
        // In discovery mode it lists only find_tools and call_tool: a selected tool is reached through them.
        tool.on ? (view.discovery ? 'via call_tool' : 'yes') : `no: ${WHY[tool.why ?? 'editor-selection']}`,
        String(tool.tokens),
        tool.exposed ?? '',
      ]);
  }
  if (rows.length > 1) ctx.output.out('\n' + table(rows));
  if (view.discovery && rows.length > 1)
    ctx.output.out(
      `\n${view.label} lists only find_tools and call_tool: it finds the tools marked "via call_tool" with find_tools and calls them through call_tool.`,
    );
}

const WHY: Record<string, string> = {
  'held-new': 'new, held back',
  'held-changed': 'changed, held back',
  'server-filter': 'off in servers.json',
  'editor-selection': 'not selected',
};
