import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  ServerConfigSchema,
  ServerNameSchema,
  type ServerConfigInput,
} from '../../../shared/schema/servers.ts';
import { addServers } from '../../core/config/add-servers.ts';
import { readServerValue, removeServer } from '../../core/config/edit.ts';
import { ProjectService } from '../../core/projects/project-service.ts';
import { projectServerEditRefusal } from '../../core/projects/project-server-edits.ts';
import { entryDiff } from '../../core/config/entry-diff.ts';
import { displayText } from '../../../shared/display-text.ts';
import { readServersFile } from '../../core/config/servers-file.ts';
import { UserError } from '../../core/errors.ts';
import { recordSource } from '../../core/services/source-record.ts';
import type { CliContext } from '../context.ts';
import { cliKeychain } from '../instance-keychain.ts';
import { UsageError } from '../output.ts';
import { singleName } from './trust.ts';
import { usageOf } from '../help.ts';

const ADD_USAGE = usageOf('add');

/**
 * Adds a server to servers.json; it then waits for approval like any other change. A name that is
 * taken is refused, saying what replacing it would change, unless `--replace` asks for exactly that.
 */
export async function addCommand(
  ctx: Pick<CliContext, 'home' | 'output' | 'keychain'>,
  argv: string[],
): Promise<number> {
  const dashes = argv.indexOf('--');
  const own = dashes >= 0 ? argv.slice(0, dashes) : argv;
  const commandLine = dashes >= 0 ? argv.slice(dashes + 1) : [];
  const { values, positionals } = parseArgs({
    args: own,
    options: {
      env: { type: 'string', multiple: true, default: [] },
      header: { type: 'string', multiple: true, default: [] },
      url: { type: 'string' },
      cwd: { type: 'string' },
      replace: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  const name = positionals[0];
  if (!name || positionals.length !== 1) throw new UsageError(ADD_USAGE);
  // Checked before anything is written: a bad name would make servers.json invalid for every command.
  const named = ServerNameSchema.safeParse(name);
  if (!named.success) throw new UsageError(`server name "${name}": ${named.error.issues[0]?.message}`);
  let config: ServerConfigInput & Record<string, unknown>;
  if (values.url !== undefined) {
    if (commandLine.length)
      throw new UsageError(`a server is either a URL or a command, not both\n${ADD_USAGE}`);
    config = { url: values.url, ...nonEmpty('headers', pairs(values.header, '--header')) };
  } else {
    const [typed, ...args] = commandLine;
    if (!typed) throw new UsageError(ADD_USAGE);
    // "./bin/server" means "here", where the person typed it — not the home folder servers run in.
    const command = /[\\/]/.test(typed) && !isAbsolute(typed) ? resolve(typed) : typed;
    config = {
      command,
      ...(args.length ? { args } : {}),
      ...nonEmpty('env', pairs(values.env, '--env')),
      ...(values.cwd ? { cwd: values.cwd } : {}),
    };
  }
  const checked = ServerConfigSchema.safeParse(config);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new UserError(`server "${name}": ${issue?.path.join('.') || 'config'}: ${issue?.message}`);
  }
  const existing = readServersFile(ctx.home.serversFile);
  if (!existing.ok) {
    throw new UserError(`${ctx.home.serversFile} has errors; fix them first (see: switchboard status)`);
  }
  const before = existing.servers.has(name) ? readServerValue(ctx.home.serversFile, name) : undefined;
  const change = before === undefined ? [] : entryDiff(before, config).map(displayText);
  if (before !== undefined && change.length === 0) {
    ctx.output.out(`"${name}" is in ${ctx.home.serversFile} exactly so already; nothing changed.`);
    return 0;
  }
  if (before !== undefined && !values.replace) {
    // Replacing a server is a change to what runs: the person sees it and asks for it.
    ctx.output.err(
      `switchboard add: a server named "${name}" exists already in ${ctx.home.serversFile}; nothing was changed.\n` +
        `Replacing it would change its entry so (- now, + then):\n${change.join('\n')}\n` +
        `To replace it (it then waits for your approval again), add --replace: switchboard add ${name} --replace …\n` +
        `To keep both, choose another name.`,
    );
    return 1;
  }
  // A token pasted on the command line goes to the keychain; servers.json only gets the reference.
  const [added] = await addServers({
    serversFile: ctx.home.serversFile,
    keychain: cliKeychain(ctx),
    servers: [{ name, config }],
    replace: values.replace,
  });
  // The approval says where this came from, also when a running serve (another process) shows it.
  recordSource(ctx.home, name, 'cli');
  if (added?.replaced) ctx.output.out(`Replaced "${name}" in ${ctx.home.serversFile}:\n${change.join('\n')}`);
  else ctx.output.out(`Added "${name}" in ${ctx.home.serversFile}.`);
  for (const s of added?.secrets ?? []) {
    ctx.output.out(`${s.key} looked like a secret: stored in the keychain as \${secret:${s.name}}.`);
  }
  ctx.output.out(`It needs your approval before it runs: switchboard approve ${name}`);
  return 0;
}

/** `{[key]: record}` when the record has anything in it: `add` writes no empty env or headers. */
function nonEmpty(
  key: 'env' | 'headers',
  record: Record<string, string>,
): Record<string, Record<string, string>> {
  return Object.keys(record).length ? { [key]: record } : {};
}

export async function removeCommand(
  ctx: Pick<CliContext, 'home' | 'output'>,
  argv: string[],
): Promise<number> {
  const name = singleName(argv, 'remove');
  const existing = readServersFile(ctx.home.serversFile);
  if (existing.ok && !existing.servers.has(name)) {
    const origin = new ProjectService(ctx.home.root).originOf(name);
    if (origin) throw new UserError(projectServerEditRefusal(name, origin, 'remove'));
    throw new UserError(`no server named "${name}" in ${ctx.home.serversFile}`);
  }
  removeServer(ctx.home.serversFile, name);
  ctx.output.out(`Removed "${name}" from ${ctx.home.serversFile}.`);
  return 0;
}

export function pairs(items: string[], flag: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0)
      throw new UsageError(
        `${flag} takes KEY=VALUE (got "${item.includes('=') ? item : item.slice(0, 20)}")`,
      );
    result[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return result;
}
