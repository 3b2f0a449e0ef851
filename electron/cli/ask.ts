import { createInterface } from 'node:readline';
import type { CliContext } from './context.ts';

/** True when a person can answer (stdin is a terminal): scripts get no question. */
export function canAsk(ctx: CliContext): boolean {
  return (ctx.stdin as { isTTY?: boolean }).isTTY === true;
}

/** Prints the question and resolves with the next line typed ('' at end of input). */
export function ask(ctx: CliContext, question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: ctx.stdin, terminal: false });
    ctx.output.out(question);
    rl.once('line', (line) => {
      // Resolved first: close() emits 'close' at once, which would answer '' instead.
      resolve(line);
      rl.close();
    });
    rl.once('close', () => resolve(''));
  });
}

/** A yes/no question whose answer is no unless the person types y or yes. */
export async function askYes(ctx: CliContext, question: string): Promise<boolean> {
  return /^y(es)?$/i.test((await ask(ctx, question)).trim());
}
