import type { LogLine } from '../../../shared/logs.ts';
import type { ServerEntry } from '../server-entry.ts';
import type { Supervisor } from '../supervisor/supervisor.ts';

/** A server's log lines, as its supervisor keeps them (none while nothing runs here). */
export class ServerLogs {
  readonly #servers: { entry(name: string): ServerEntry };
  readonly #live: { supervisor(): Pick<Supervisor, 'logs'> | undefined };

  constructor(
    servers: { entry(name: string): ServerEntry },
    live: { supervisor(): Pick<Supervisor, 'logs'> | undefined },
  ) {
    this.#servers = servers;
    this.#live = live;
  }

  lines(name: string, limit = 500): LogLine[] {
    this.#servers.entry(name); // "no server named …"
    return this.#live.supervisor()?.logs(name, limit) ?? [];
  }
}
