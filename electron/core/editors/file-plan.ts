import type { ImportedEntry } from '../../../shared/schema/state.ts';
import type { EntrySides } from './entry-changes.ts';
import type { ContainerForm } from './jsonc-entries.ts';

// What planning one editor file takes and gives, the same for every format (JSON, TOML, YAML).

/**
 * What Switchboard remembers about the shape of an editor's file, so that removing every managed
 * entry gives back the user's bytes exactly: whether it created the file (and what was there: nothing,
 * or an empty/whitespace file), whether it created the servers object, and how it inserted into an
 * empty object. Holds no content of the user's beyond whitespace.
 */
export interface FileLayout {
  /** the settings file this record is about; a record for another path is ignored */
  file: string;
  /** set when Switchboard started the file: it did not exist, or held only whitespace (kept here) */
  fileWas?: { existed: boolean; text: string } | undefined;
  /** the servers object was added by Switchboard (and goes again when it is empty) */
  containerCreated?: boolean | undefined;
  rootForm?: ContainerForm | undefined;
  serversForm?: ContainerForm | undefined;
  /** a line break Switchboard added at the end of a file that had none (TOML, YAML) */
  eolAdded?: boolean | undefined;
  /** bridge ports managed entries in this file were written with */
  ports?: number[] | undefined;
}

/** One file's plan: its text and layout, and (EntrySides) the entries it must have and whose are whose. */
export interface PlanInput extends EntrySides {
  /** the file's text as read (BOM included); undefined when there is no file */
  text: string | undefined;
  /** the top-level key of the servers object */
  serversKey: string;
  layout: FileLayout | undefined;
  file: string;
  /**
   * unsync (no desired entries): the user's entries earlier imports replaced, to give back — one list
   * per import, oldest first, each in the order import made its changes (PlanResult.imported)
   */
  restore?: readonly (readonly PlannedImport[])[];
}

/** A user entry import replaced, as the file had it (ImportedEntrySchema, before its secrets are cut out). */
export type PlannedImport = Omit<ImportedEntry, 'secrets'>;

export type PlanResult =
  | {
      ok: true;
      /** the new text; undefined = the file goes (Switchboard had created it) */
      text: string | undefined;
      changed: boolean;
      added: string[];
      updated: string[];
      removed: string[];
      /** desired servers whose name a user entry already has: reported, never overwritten */
      clashes: string[];
      /** user entries replaced by managed ones (import) */
      adopted: string[];
      /** import: what unsync needs to give those entries back, in the order the changes were made */
      imported: PlannedImport[];
      /** unsync: user entries given back */
      restored: string[];
      /** unsync: user entries that could not be given back, and why */
      notRestored: { entry: string; why: string }[];
      layout: FileLayout | undefined;
    }
  | { ok: false; problem: string; line?: number; column?: number };

/**
 * Where every format's plan starts: the file's text as given, its byte-order mark and body apart
 * (`emptyBody` for a missing or blank file), and a copy of the layout kept for this file.
 */
export function planStart(
  input: PlanInput,
  emptyBody = '',
): { original: string | undefined; empty: boolean; bom: string; body: string; layout: FileLayout } {
  const original = input.text;
  const empty = original === undefined || original.trim() === '';
  const bom = !empty && original.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  const body = empty ? emptyBody : original.slice(bom.length);
  const layout = input.layout?.file === input.file ? { ...input.layout } : { file: input.file };
  return { original, empty, bom, body, layout };
}
