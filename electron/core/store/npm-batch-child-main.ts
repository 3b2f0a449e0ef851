// The child npm-batch-child.ts starts (`node npm-batch-child-main.ts`): reads one lock to write per
// line on stdin, writes each with the person's npm's resolver loaded once into this process
// (npm-in-process.ts, side by side, packuments shared), answers one line per lock on stdout, and
// exits once stdin ends and every lock is answered.
import { createInterface } from 'node:readline';
import type { BatchReply, BatchRequest } from './npm-batch-child.ts';
import { lockInProcess } from './npm-in-process.ts';

const answers: Promise<void>[] = [];

function reply(answer: BatchReply): void {
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}

async function write(line: string): Promise<void> {
  const request = requestOf(line);
  if (!request) return; // not a request: nobody waits for it
  try {
    const written = await lockInProcess(request.dir, request.program);
    reply({ id: request.id, result: written ? 'ok' : 'fallback' });
  } catch (err) {
    reply({ id: request.id, result: 'failed', error: err instanceof Error ? err.message : String(err) });
  }
}

/**
 * The parent is this pipe's only writer (JSON.stringify of a BatchRequest): a check of its shape,
 * not zod's parse, which would add ~0.2 s and ~18 MB to every child's start.
 */
function requestOf(line: string): BatchRequest | undefined {
  try {
    const value = JSON.parse(line) as Partial<BatchRequest> | null;
    const program = value?.program;
    return typeof value?.id === 'number' &&
      typeof value.dir === 'string' &&
      typeof program?.npm === 'string' &&
      Array.isArray(program.npmArgs) &&
      typeof program.staging === 'string' &&
      typeof program.env === 'object'
      ? (value as BatchRequest)
      : undefined;
  } catch {
    return undefined;
  }
}

createInterface({ input: process.stdin })
  .on('line', (line) => answers.push(write(line)))
  .on('close', () => {
    // npm's registry agent may keep sockets open: exit once the answers are out, not when idle.
    void Promise.allSettled(answers).then(() => process.stdout.write('', () => process.exit(0)));
  });
