import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { displayText } from '../../../shared/display-text.ts';
import { ServerNameSchema } from '../../../shared/schema/servers.ts';
import { UserError } from '../../core/errors.ts';
import { recordSource } from '../../core/services/source-record.ts';
import { addBundleServer, bundleServerName } from '../../core/store/bundle-server.ts';
import { installBundle } from '../../core/store/mcpb-bundle.ts';
import { PackageStore } from '../../core/store/package-store.ts';
import type { CliContext } from '../context.ts';
import { cliKeychain } from '../instance-keychain.ts';
import { UsageError } from '../output.ts';
import { usageOf } from '../help.ts';
import { ask, askSecret, interactive } from '../prompt.ts';
import { pairs } from './servers.ts';

const USAGE = usageOf('install');

/**
 * `install FILE.mcpb`: unpacks an MCP bundle into the store (manifest validated, signature checked),
 * asks for its user_config (secrets hidden, into the keychain; or --set KEY=VALUE, or stdin-less
 * defaults), and adds its server pending approval.
 */
export async function installCommand(
  ctx: Pick<CliContext, 'home' | 'output' | 'stdin' | 'keychain'>,
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { name: { type: 'string' }, set: { type: 'string', multiple: true, default: [] } },
    allowPositionals: true,
    strict: true,
  });
  const [file] = positionals;
  if (!file || positionals.length !== 1) throw new UsageError(USAGE);
  if (!file.endsWith('.mcpb') && !file.endsWith('.dxt'))
    throw new UsageError(`${file} is not an MCP bundle (.mcpb)\n${USAGE}`);
  const bundle = await installBundle(resolve(file), new PackageStore(ctx.home.store));
  const { record } = bundle;
  const name = values.name ?? bundleServerName(record.name);
  const named = ServerNameSchema.safeParse(name);
  if (!named.success) throw new UsageError(`server name "${name}": ${named.error.issues[0]?.message}`);
  ctx.output.out(
    `${displayText(record.displayName)} ${displayText(record.version)} by ${displayText(record.author)} ` +
      `(${record.signature}), unpacked into the package store.`,
  );

  const given = pairs(values.set, '--set');
  const answers: Record<string, string> = {};
  const missing: string[] = [];
  for (const [key, field] of Object.entries(record.userConfig)) {
    if (given[key] !== undefined) {
      answers[key] = given[key];
      continue;
    }
    if (interactive(ctx)) {
      const label = `${displayText(field.title)}${field.description ? ` (${displayText(field.description)})` : ''}`;
      const fallback = field.default === undefined ? '' : ` [${displayText(String(field.default))}]`;
      const answer = field.sensitive
        ? await askSecret(ctx, `${label}: `)
        : await ask(ctx, `${label}${fallback}: `);
      if (answer !== '') answers[key] = answer;
    }
    if (answers[key] === undefined && field.required && field.default === undefined) missing.push(key);
  }
  if (missing.length)
    throw new UserError(`the bundle needs: ${missing.join(', ')}`, {
      hint: `give them with --set KEY=VALUE (a secret is better typed at the prompt, in a terminal)`,
    });
  const added = await addBundleServer({
    bundle,
    name,
    values: answers,
    serversFile: ctx.home.serversFile,
    keychain: cliKeychain(ctx),
  });
  // The approval says it came from this command (as `add`'s does), not from a hand edit.
  recordSource(ctx.home, name, 'cli');
  ctx.output.out(`Added "${name}" to ${ctx.home.serversFile}.`);
  for (const secret of added.secrets)
    ctx.output.out(`Stored a secret in the keychain as \${secret:${secret}}.`);
  ctx.output.out(`It needs your approval before it runs: switchboard approve ${name}`);
  return 0;
}
