import { createInterface } from 'node:readline';
import type { CliContext } from './context.ts';

/** True when a person can answer a question: stdin is a terminal (a script's pipe is not). */
export function interactive(ctx: CliContext): boolean {
  return (ctx.stdin as { isTTY?: boolean }).isTTY === true;
}

/** Asks one question and resolves with the line typed ('' when stdin closes first). */
export function ask(ctx: CliContext, question: string): Promise<string> {
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
export async function askYes(ctx: CliContext, question: string): Promise<boolean> {
  return isYes(await ask(ctx, question));
}
