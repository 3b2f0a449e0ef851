import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { PeerUsers } from './peer-user.ts';

export type PeerVerdict = { ok: true } | { ok: false; reason: string };

const LET_THROUGH: PeerVerdict = { ok: true };

/**
 * Every TCP connection to the bridge comes from the person's own OS user, or each request on it is
 * refused before its Host, Origin or token is looked at: a token another user collected (a port
 * squatter while `serve` was down, a file it could read) opens nothing. Judged once per connection,
 * when it is accepted; a keep-alive request after the first pays one WeakMap lookup.
 */
export class PeerGate {
  readonly #users: PeerUsers;
  readonly #ownUid: number | undefined;
  readonly #verdicts = new WeakMap<Socket, PeerVerdict | Promise<PeerVerdict>>();
  /** users already named in serve's output: once each, so another user cannot fill it */
  readonly #told = new Set<number>();
  readonly #warn: (line: string) => void;

  constructor(
    users: PeerUsers,
    ownUid: number | undefined = process.getuid?.(),
    warn: (line: string) => void = (line) => console.warn(line),
  ) {
    this.#users = users;
    this.#ownUid = ownUid;
    this.#warn = warn;
  }

  /** The verdict on `socket`'s user: at once when known, else when the lookup started at accept ends. */
  verdict(socket: Socket): PeerVerdict | Promise<PeerVerdict> {
    const known = this.#verdicts.get(socket);
    if (known) return known;
    const own = this.#ownUid;
    if (this.#users.coverage === 'unchecked' || own === undefined) {
      this.#verdicts.set(socket, LET_THROUGH);
      return LET_THROUGH;
    }
    const pending = this.#users.uidOf(socket).then(
      (lookup): PeerVerdict => {
        if ('unknown' in lookup)
          return {
            ok: false,
            reason: `connection refused: cannot tell which local user opened it (${lookup.unknown})`,
          };
        if (lookup.uid !== own) {
          this.#tell(lookup.uid, own);
          return { ok: false, reason: `connection from another local user (uid ${lookup.uid}) refused` };
        }
        return LET_THROUGH;
      },
      (err: unknown): PeerVerdict => ({
        ok: false,
        reason: `connection refused: cannot tell which local user opened it (${(err as Error).message})`,
      }),
    );
    this.#verdicts.set(socket, pending);
    void pending.then((v) => this.#verdicts.set(socket, v));
    return pending;
  }

  /**
   * Says once per user, in serve's output, that its connections are refused: the person who runs
   * serve as root while the editors run as themselves learns why they get 403.
   */
  #tell(uid: number, own: number): void {
    if (this.#told.has(uid) || this.#told.size >= 16) return;
    this.#told.add(uid);
    this.#warn(
      `bridge: refusing connections from uid ${uid}: Switchboard answers only its own user (uid ${own}); run serve as the user your editors run as`,
    );
  }
}

/** 403 with the reason, and the connection closes after it: nothing else is answered on it. */
export function refuseConnection(res: ServerResponse, reason: string): void {
  const body = JSON.stringify({ error: reason });
  res.writeHead(403, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}
