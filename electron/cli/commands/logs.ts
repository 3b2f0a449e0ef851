import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiEventSchema } from '../../../shared/api.ts';
import { displayText } from '../../../shared/display-text.ts';
import type { LogLine } from '../../../shared/logs.ts';
import { UserError } from '../../core/errors.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { UsageError } from '../output.ts';

export async function logsCommand(ctx: CliContext, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      follow: { type: 'boolean', short: 'f' },
      lines: { type: 'string', short: 'n', default: '200' },
    },
    allowPositionals: true,
  });
  const name = positionals[0];
  if (!name || positionals.length > 1)
    throw new UsageError('usage: switchboard logs NAME [--follow] [--lines N]');
  const limit = Number(values.lines);
  if (!Number.isInteger(limit) || limit < 0) throw new UsageError('--lines takes a whole number');

  const client = InstanceClient.connect(ctx.home);
  if (!client) {
    if (values.follow)
      throw new UserError('Switchboard is not running, so there is nothing to follow', {
        hint: 'start it with: switchboard serve',
      });
    const file = join(ctx.home.logs, `${name}.log`);
    if (!existsSync(file)) throw new UserError(`no log for "${name}" yet (${file})`);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    // A server's own words reach a terminal: escape sequences and bidi controls show, never act.
    for (const line of lines.slice(-limit)) ctx.output.out(displayText(line));
    return 0;
  }
  for (const line of await client.logs(name, limit)) ctx.output.out(formatLine(line));
  if (!values.follow) return 0;

  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  try {
    const stream = await client.events(abort.signal);
    let buffer = '';
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame.startsWith('data: ') ? frame.slice(6) : undefined;
        if (!data) continue;
        const event = ApiEventSchema.safeParse(JSON.parse(data));
        if (event.success && event.data.type === 'log' && event.data.line.server === name)
          ctx.output.out(formatLine(event.data.line));
      }
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
