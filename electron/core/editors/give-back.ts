import type { EditorId } from '../../../shared/editors.ts';
import type { EditorSettings, ImportedEntry, ImportRecord } from '../../../shared/schema/state.ts';
import type { Keychain } from '../secrets/keychain.ts';
import type { FileFormat } from './file-format.ts';
import type { PlannedImport } from './file-plan.ts';
import { cutSecrets, fillSecrets, inJsonString, type SecretSpan } from './secret-spans.ts';

/**
 * What import keeps so that unsync can give back the user's entries it replaced (state.json
 * `editors.<id>.imported`), and how unsync turns it back into text: each secret import moved into
 * the keychain put back from there, or a placeholder saying where it is.
 */

/**
 * What stands where a secret was in an entry unsync gave back without its secrets: where the value
 * is and how to put it back. Plain text that is safe inside a JSON or TOML string and as a YAML value
 * (no quote, backslash, comma, `: ` or ` #`), and unmistakably not a working value (editors pass it
 * on as is, and the server refuses it).
 */
export function heldBackPlaceholder(name: string, editor: EditorId): string {
  return `<secret ${name} is in your keychain; to put it here run switchboard unsync --editor ${editor} --restore-secrets>`;
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

/**
 * What unsync needs to give back the user's entries one import replaced, with each literal secret
 * import moved into the keychain cut out (state.json never holds one). Where a secret hides in an
 * escaped form the cut cannot find, the entry is kept as its value written afresh in the file's format
 * instead (equal, not byte for byte); a gap that would hold a secret (in a comment) is dropped (the
 * entry then comes back at the end of the collection).
 */
export function importRecord(
  file: string,
  entries: readonly PlannedImport[],
  secretsIn: ((text: string) => SecretSpan[]) | undefined,
  format: FileFormat,
  serversKey: string,
): ImportRecord {
  const spans = secretsIn ?? (() => []);
  return {
    file,
    importedAt: Date.now(),
    entries: entries.map((planned): ImportedEntry => {
      let e = planned;
      let cut = cutSecrets(e.text, spans(e.text));
      if (spans(JSON.stringify(format.entryValue({ ...e, text: cut.text }, serversKey))).length) {
        e = format.entryFromValue(e, format.entryValue(e, serversKey), serversKey);
        cut = cutSecrets(e.text, spans(e.text));
      }
      const gap =
        e.gap && spans(e.gap.lead + '\0' + e.gap.trail + '\0' + e.gap.left).length === 0 ? e.gap : undefined;
      return {
        entry: e.entry,
        server: e.server,
        text: cut.text,
        secrets: cut.secrets,
        place: e.place,
        ...(gap ? { gap } : {}),
      };
    }),
  };
}

export interface UnsyncOptions {
  /** put the secrets import moved into the keychain back into the entries given back (default: hold them back) */
  restoreSecrets?: boolean;
  /** needed to put secrets back */
  keychain?: () => Keychain;
  /** say what would happen; write nothing */
  dryRun?: boolean;
}

/** unsync of one editor: the entries import replaced, to give back, and what to do with their secrets */
export interface GiveBack {
  records: readonly ImportRecord[];
  /** the records' entries with the texts to write (secrets put back or held back) */
  batches: PlannedImport[][];
  /** secrets whose values were read from the keychain */
  putBack: ReadonlySet<string>;
  /** secrets an earlier unsync held back, to put where their placeholders stand: name → value */
  fill: ReadonlyMap<string, string>;
  /** names whose placeholders may stand in the file (held back now or before) */
  heldNames: readonly string[];
  /** import records of other files (another path of this editor's file): kept */
  otherRecords: ImportRecord[];
  /** secrets asked for that are no longer in the keychain (their placeholders stay) */
  missing: string[];
}

/** What unsync gives back to one editor's file: the entries import replaced there, and their secrets. */
export async function giveBackFor(
  editor: EditorId,
  file: string,
  settings: EditorSettings,
  options: UnsyncOptions,
): Promise<GiveBack> {
  const all = settings.imported ?? [];
  const records = all.filter((r) => r.file === file);
  const putBack = options.restoreSecrets === true && !options.dryRun;
  const given = await entriesToGiveBack(records, editor, putBack, options.keychain);
  const held = settings.heldBack?.file === file ? settings.heldBack.names : [];
  const fill = new Map<string, string>();
  const missing = [...given.missing];
  if (putBack && options.keychain) {
    for (const name of held) {
      const value = await options.keychain().get(name);
      if (value !== undefined) fill.set(name, value);
      else if (!missing.includes(name)) missing.push(name);
    }
  }
  return {
    records,
    batches: given.batches,
    putBack: new Set(given.putBack),
    fill,
    heldNames: [...new Set([...held, ...given.heldBack])],
    otherRecords: all.filter((r) => r.file !== file),
    missing: missing.sort(),
  };
}

/**
 * Unsync --restore-secrets after an unsync that held them back: each placeholder in the planned text
 * gets its value. `filled` names the secrets whose placeholders stood there.
 */
export function fillHeldBack(
  text: string | undefined,
  editor: EditorId,
  give: GiveBack | undefined,
): { next: string | undefined; filled: string[] } {
  const filled = [...(give?.fill.keys() ?? [])].filter((name) =>
    (text ?? '').includes(heldBackPlaceholder(name, editor)),
  );
  const next = give && filled.length && text !== undefined ? fillPlaceholders(text, editor, give.fill) : text;
  return { next, filled };
}

/**
 * What unsync learnt, as a change of the editor's settings in state.json: the import records it used
 * up, and which secrets now stand as placeholders in the file (its text as left).
 */
export function afterGiveBack(
  give: GiveBack,
  editor: EditorId,
  file: string,
  text: string | undefined,
): (settings: EditorSettings) => void {
  const held = give.heldNames.filter((n) => (text ?? '').includes(heldBackPlaceholder(n, editor)));
  return (s) => {
    if (give.otherRecords.length) s.imported = give.otherRecords;
    else delete s.imported;
    if (held.length) s.heldBack = { file, names: held };
    else delete s.heldBack;
  };
}
