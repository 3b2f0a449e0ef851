import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../clock.ts';
import { SDK_TIMEOUT_MS, type Attempt } from './attempt.ts';
import type { SupervisorTimings } from './types.ts';

type PingTimings = Pick<SupervisorTimings, 'pingIntervalMs' | 'pingTimeoutMs' | 'pingMissesBeforeRestart'>;

/**
 * Health checks of a running server: a ping every interval on the clock; after enough missed in a
 * row the attempt fails (and the runner backs off and starts it again). Ends with the attempt.
 */
export function startPings(attempt: Attempt, client: Client, clock: Clock, timings: PingTimings): void {
  let misses = 0;

  const schedule = (): void => {
    const cancel = clock.setTimeout(() => {
      attempt.cancels.delete(cancel);
      void ping();
    }, timings.pingIntervalMs);
    attempt.cancels.add(cancel);
  };

  const ping = async (): Promise<void> => {
    if (!attempt.current) return;
    let answered: boolean;
    try {
      await attempt.request(timings.pingTimeoutMs, new Error('ping timed out'), (signal) =>
        client.ping({ signal, timeout: SDK_TIMEOUT_MS }),
      );
      answered = true;
    } catch (err) {
      // An error response is still an answer: the server is alive.
      answered =
        err instanceof McpError &&
        err.code !== ErrorCode.RequestTimeout &&
        err.code !== ErrorCode.ConnectionClosed;
    }
    if (!attempt.current) return;
    const max = timings.pingMissesBeforeRestart;
    if (answered) {
      misses = 0;
    } else {
      misses += 1;
      attempt.note(`health: ping missed (${misses}/${max})`, 'warn');
      if (misses >= max) {
        attempt.fail(`stopped answering ping (${max} missed in a row); restarting`);
        return;
      }
    }
    schedule();
  };

  schedule();
}
