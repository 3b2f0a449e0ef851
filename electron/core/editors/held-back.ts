import type { EditorId } from '../../../shared/editors.ts';
import type { ImportRecord } from '../../../shared/schema/state.ts';
import type { Keychain } from '../secrets/keychain.ts';
import type { PlannedImport } from './plan.ts';
import { fillSecrets, inJsonString } from './secret-spans.ts';

/**
 * What stands where a secret was in an entry unsync gave back without its secrets: where the value
 * is and how to put it back. Plain text that is safe inside a JSON string, and unmistakably not a
 * working value (editors pass it on as is, and the server refuses it).
 */
export function heldBackPlaceholder(name: string, editor: EditorId): string {
  return `<secret ${name} is in your keychain; to put it here run: switchboard unsync --editor ${editor} --restore-secrets>`;
}

/** The secrets the entries of these import records held, by keychain name. */
export function secretNames(records: readonly ImportRecord[]): string[] {
  return [...new Set(records.flatMap((r) => r.entries.flatMap((e) => e.secrets.map((s) => s.name))))].sort();
}

/**
 * The records' entries with their texts as unsync writes them: each secret read back from the
 * keychain (`putBack`), or its placeholder. A secret no longer in the keychain gets its placeholder too.
 */
export async function entriesToGiveBack(
  records: readonly ImportRecord[],
  editor: EditorId,
  putBack: boolean,
  keychain: (() => Keychain) | undefined,
): Promise<{ batches: PlannedImport[][]; putBack: string[]; heldBack: string[]; missing: string[] }> {
  const values = new Map<string, string>();
  const missing: string[] = [];
  const names = secretNames(records);
  if (putBack && keychain) {
    for (const name of names) {
      const value = await keychain().get(name);
      if (value === undefined) missing.push(name);
      else values.set(name, inJsonString(value));
    }
  }
  const text = (name: string) => values.get(name) ?? heldBackPlaceholder(name, editor);
  const batches = records.map((r) =>
    r.entries.map(({ secrets, ...e }) => ({ ...e, text: fillSecrets(e.text, secrets, text) })),
  );
  return {
    batches,
    putBack: names.filter((n) => values.has(n)),
    heldBack: names.filter((n) => !values.has(n)),
    missing,
  };
}

/** The file's text with the placeholders of these secrets replaced by their values. */
export function fillPlaceholders(
  text: string,
  editor: EditorId,
  values: ReadonlyMap<string, string>,
): string {
  let out = text;
  for (const [name, value] of values)
    out = out.split(heldBackPlaceholder(name, editor)).join(inJsonString(value));
  return out;
}
