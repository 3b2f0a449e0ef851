import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { displayText } from '../../../shared/display-text.ts';
import type { LogLine } from '../../../shared/logs.ts';
import { UserError } from '../../core/errors.ts';
import { parseLogLine } from '../../core/logs/server-log.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { UsageError } from '../output.ts';
import { usageOf } from '../help.ts';

export async function logsCommand(ctx: Pick<CliContext, 'home' | 'output'>, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      follow: { type: 'boolean', short: 'f' },
      lines: { type: 'string', short: 'n', default: '200' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  const name = positionals[0];
  if (!name || positionals.length > 1) throw new UsageError(usageOf('logs'));
  const limit = Number(values.lines);
  if (!Number.isInteger(limit) || limit < 0) throw new UsageError('--lines takes a whole number');
  // --json: {"lines": [LogLine…]} (shared/logs.ts); with --follow, one LogLine object per line after it.
  const print = (lines: LogLine[]) => {
    if (values.json) ctx.output.out(JSON.stringify({ lines }, null, 2));
    else for (const line of lines) ctx.output.out(formatLine(line));
  };

  const client = InstanceClient.connect(ctx.home);
  if (!client) {
    if (values.follow)
      throw new UserError('Switchboard is not running, so there is nothing to follow', {
        hint: 'start it with: switchboard serve',
      });
    const file = join(ctx.home.logs, `${name}.log`);
    if (!existsSync(file)) throw new UserError(`no log for "${name}" yet (${file})`);
    const texts = readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(-limit);
    // A server's own words reach a terminal: escape sequences and bidi controls show, never act.
    if (!values.json) for (const text of texts) ctx.output.out(displayText(text));
    else print(texts.flatMap((text) => parseLogLine(name, text) ?? []));
    return 0;
  }
  print(await client.logs(name, limit));
  if (!values.follow) return 0;

  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  try {
    for await (const event of client.subscribe(abort.signal)) {
      if (event.type !== 'log' || event.line.server !== name) continue;
      ctx.output.out(values.json ? JSON.stringify(event.line) : formatLine(event.line));
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    process.off('SIGINT', stop);
  }
  return 0;
}

/** One log line for a terminal: what the server wrote, with control and bidi characters escaped. */
export function formatLine(line: LogLine): string {
  const marker = line.source === 'lifecycle' ? '[switchboard]' : '';
  return [new Date(line.ts).toISOString(), line.level.toUpperCase().padEnd(5), marker, displayText(line.text)]
    .filter(Boolean)
    .join(' ');
}
