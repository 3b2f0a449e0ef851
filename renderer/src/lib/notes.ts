/**
 * A word from one view to the next one it navigates to (e.g. which secrets an add moved to the
 * keychain, said on the new server's page). In memory only: a reload forgets it, as it should.
 */
const notes = new Map<string, unknown>();

export function leaveNote(key: string, value: unknown): void {
  notes.set(key, value);
}

export function readNote(key: string): unknown {
  return notes.get(key);
}

export function dropNote(key: string): void {
  notes.delete(key);
}

/** The note a new server's page reads: which literal secrets its add moved to the keychain. */
export const addedNote = (name: string) => `added:${name}`;
