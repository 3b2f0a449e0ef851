import { createInterface } from 'node:readline';
import type { CliContext } from './context.ts';

/** True when a person can answer a question: stdin is a terminal (a script's pipe is not). */
export function interactive(ctx: Pick<CliContext, 'stdin'>): boolean {
  return (ctx.stdin as { isTTY?: boolean }).isTTY === true;
}

/** Asks one question and resolves with the line typed ('' when stdin closes first). */
export function ask(ctx: Pick<CliContext, 'output' | 'stdin'>, question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: ctx.stdin, terminal: false });
    ctx.output.out(question);
    rl.once('line', (line) => {
      // Resolved before close(): close() emits 'close' at once, which would answer '' first.
      resolve(line);
      rl.close();
    });
    rl.once('close', () => resolve(''));
  });
}

/** "y" or "yes", any case. */
export function isYes(answer: string): boolean {
  return /^y(es)?$/i.test(answer.trim());
}

/** A yes/no question whose answer is no unless the person types y or yes. */
export async function askYes(ctx: Pick<CliContext, 'output' | 'stdin'>, question: string): Promise<boolean> {
  return isYes(await ask(ctx, question));
}

/**
 * Asks for a secret on a terminal without echoing what is typed (raw mode: Enter ends it; Ctrl+C is
 * passed on as the interrupt it would have been), falling back to `ask` where stdin is no terminal.
 */
export function askSecret(ctx: Pick<CliContext, 'output' | 'stdin'>, question: string): Promise<string> {
  const input = ctx.stdin as NodeJS.ReadStream;
  if (!input.isTTY || typeof input.setRawMode !== 'function') return ask(ctx, question);
  ctx.output.out(question);
  return new Promise((resolve) => {
    let value = '';
    const finish = (result: string) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish(value);
        if (char === '\u0003') {
          finish('');
          process.kill(process.pid, 'SIGINT');
          return;
        }
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on('data', onData);
  });
}
