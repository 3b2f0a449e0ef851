import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { getCompileCacheDir } from 'node:module';
import type { Socket } from 'node:net';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { childScript, nodeChildEnv } from '../child-script.ts';
import type { NpmProgram } from './npm-in-process.ts';

/** One lock to write, as the parent sends it to the child (one JSON line on its stdin). */
export interface BatchRequest {
  id: number;
  dir: string;
  program: Omit<NpmProgram, 'env'> & { env: Record<string, string> };
}

/**
 * The child's answer for one lock (one JSON line on its stdout): written; `fallback`, npm is not one
 * npm-in-process.ts can load; `failed`, npm's resolver threw (the caller runs npm, for npm's own words).
 */
export const BatchReplySchema = z.object({
  id: z.number().int(),
  result: z.enum(['ok', 'fallback', 'failed']),
  error: z.string().optional(),
});
export type BatchReply = z.infer<typeof BatchReplySchema>;

/** The script the child runs: npm-batch-child-main.ts from source, its own bundle in the desktop app. */
export const BATCH_CHILD_SCRIPT = childScript('npm-batch-child');

/**
 * How long a child waits for more of its batch after its last answer before it is told to end:
 * `outdated` asks 4 servers at a time, and on a busy machine the checks between two rounds of locks
 * took over 1 s (a second child then paid npm's load again).
 */
const LINGER_MS = 3_000;
/** A lock still unanswered this long after its caller gave up: the child is stopped. */
const HUNG_GRACE_MS = 1_000;

export interface NpmBatchChildOptions {
  /** the script the child runs (tests give one that fails) */
  script?: string;
  lingerMs?: number;
}

interface Running {
  process: ChildProcess;
  pending: Map<number, (written: boolean) => void>;
  linger: NodeJS.Timeout | undefined;
}

/**
 * Writes npm lockfiles for a long-running process (serve) in one short-lived child per batch: the
 * locks asked for together (one `outdated`, one check of several servers, the approvals at a start)
 * go to one Node child, which loads the person's npm's resolver once (npm-in-process.ts, ~46 MB that
 * leave with the child), resolves them side by side sharing packuments, answers per lock and exits
 * once no lock has come for LINGER_MS. A lock it cannot write (npm not recognised, npm's resolver
 * failed, the child died or is unavailable) answers false: the caller runs npm for it, as before.
 */
export class NpmBatchChild {
  readonly #script: string;
  readonly #lingerMs: number;
  #running: Running | undefined;
  #nextId = 1;
  #available: boolean | undefined;

  constructor(options: NpmBatchChildOptions = {}) {
    this.#script = options.script ?? BATCH_CHILD_SCRIPT;
    this.#lingerMs = options.lingerMs ?? LINGER_MS;
  }

  /** Writes `dir/package-lock.json` as npm would; false when the caller must run npm itself. */
  write(dir: string, program: NpmProgram, timeoutMs: number): Promise<boolean> {
    // A build without the child's bundle (the caller then runs npm, as before).
    this.#available ??= existsSync(this.#script);
    if (!this.#available) return Promise.resolve(false);
    const running = (this.#running ??= this.#start(program.staging));
    clearTimeout(running.linger);
    running.linger = undefined;
    holding(running.process, true);
    const id = this.#nextId++;
    const env = Object.fromEntries(
      Object.entries(program.env).filter((e): e is [string, string] => e[1] !== undefined),
    );
    const request: BatchRequest = {
      id,
      dir,
      program: { npm: program.npm, npmArgs: program.npmArgs, env, staging: program.staging },
    };
    return new Promise<boolean>((resolve) => {
      // The caller gives up at timeoutMs (npm-resolve.ts): a child still busy with it then is hung.
      const hung = setTimeout(() => running.process.kill('SIGKILL'), timeoutMs + HUNG_GRACE_MS);
      hung.unref();
      running.pending.set(id, (written) => {
        clearTimeout(hung);
        resolve(written);
      });
      running.process.stdin?.write(`${JSON.stringify(request)}\n`);
    });
  }

  #start(cwd: string): Running {
    // The compile cache this process uses (the one enabled, not its per-version folder inside),
    // so npm's modules compile once across batches.
    const versioned = getCompileCacheDir();
    const cache = versioned === undefined ? undefined : dirname(versioned);
    const child = spawn(process.execPath, [this.#script], {
      cwd,
      env: nodeChildEnv(cache ? { ...process.env, NODE_COMPILE_CACHE: cache } : process.env),
      stdio: ['pipe', 'pipe', 'ignore'],
      windowsHide: true,
    });
    const running: Running = { process: child, pending: new Map(), linger: undefined };
    const settle = (id: number, written: boolean) => {
      const done = running.pending.get(id);
      running.pending.delete(id);
      done?.(written);
    };
    const ended = () => {
      clearTimeout(running.linger);
      for (const id of [...running.pending.keys()]) settle(id, false);
      if (this.#running === running) this.#running = undefined;
    };
    child.on('error', ended);
    child.on('exit', ended);
    child.stdin?.on('error', () => {}); // a child gone: its exit settles what it held
    if (child.stdout)
      createInterface({ input: child.stdout }).on('line', (line) => {
        const reply = parseReply(line);
        if (!reply) return;
        settle(reply.id, reply.result === 'ok');
        if (running.pending.size === 0 && this.#running === running) {
          // Waiting for more is no reason to keep this process running (serve stopping, a CLI done).
          holding(child, false);
          running.linger = setTimeout(() => {
            // The batch is over: the child finishes and exits; the next lock starts another.
            if (this.#running === running) this.#running = undefined;
            child.stdin?.end();
          }, this.#lingerMs);
          running.linger.unref();
        }
      });
    return running;
  }
}

/** Whether the child (and its pipes) keeps this process's event loop alive: only while a lock waits. */
function holding(child: ChildProcess, hold: boolean): void {
  for (const handle of [child, child.stdin, child.stdout] as (Partial<Socket> | null)[]) {
    if (hold) handle?.ref?.();
    else handle?.unref?.();
  }
}

function parseReply(line: string): BatchReply | undefined {
  try {
    const parsed = BatchReplySchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // not ours (something npm printed)
  }
}
