import { StateSeal } from '../sealed-state.ts';

/**
 * A 2026 server's `requestState` as a 2026 editor carries it (modern-upstream.ts passes the server's
 * input_required through to such an editor): the server's string, untouched and never parsed, sealed
 * (sealed-state.ts) with the server's name, so that the editor's retry can give it back only to the
 * server that minted it, and nobody can hand a server a state of their own making through Switchboard.
 * The key lives in memory only: a state outlives neither Switchboard's process nor its restart (the
 * editor then starts the call anew). No expiry of Switchboard's: the server judges its own state.
 */

/** The largest state a server may hand out through Switchboard (it travels on every retry). */
export const MAX_REQUEST_STATE = 64 * 1024;

/** `state` absent: the server gave none, and the editor's retry must still come back to it. */
interface ServerState {
  server: string;
  state?: string;
}

const SEAL = new StateSeal<ServerState>('sb-up1', {
  // The largest sealed state: JSON writes a character as at most 6 (`\uXXXX`), base64 adds a third.
  maxChars: 64 + Math.ceil(((6 * MAX_REQUEST_STATE + 1024) * 4) / 3),
});

/**
 * Seals a server's state, or the absence of one (`undefined`: the server gave none, and the editor's
 * retry must still come back to it, not to Switchboard's own MRTR).
 */
export function sealServerState(server: string, state: string | undefined): string {
  return SEAL.seal(state === undefined ? { server } : { server, state });
}

/** Whether a state has the form of a server's sealed state (not whether its seal holds). */
export function isServerState(state: unknown): boolean {
  return SEAL.marks(state);
}

/**
 * What `sealed` holds when Switchboard sealed it for this server: the server's own state (undefined:
 * it gave none); undefined when the seal does not hold or it was sealed for another server.
 */
export function openServerState(server: string, sealed: unknown): { state: string | undefined } | undefined {
  const opened = SEAL.open(sealed);
  if (!opened.ok || opened.fields.server !== server) return undefined;
  return { state: opened.fields.state };
}
