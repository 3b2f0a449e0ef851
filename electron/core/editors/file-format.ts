import { findNodeAtLocation, getNodeValue } from 'jsonc-parser';
import { stripBom } from '../fs/bom.ts';
import { parseJsonc } from './jsonc-entries.ts';
import type { PlanInput, PlannedImport, PlanResult } from './file-plan.ts';
import { entryValue } from './jsonc-give-back.ts';
import { planFile } from './jsonc-plan.ts';

/** The entries of an editor file's servers collection, as the file has them (in order). */
export type FileEntries =
  | {
      ok: true;
      entries: [name: string, entry: unknown][];
      /**
       * Entries import may not replace, and why: the format could not give them back as they are
       * (unsync puts back what import replaced), so they stay the user's.
       */
      fixed?: ReadonlyMap<string, string>;
    }
  | { ok: false; problem: string };

/**
 * How one kind of editor file is read and edited (JSON, TOML, YAML). Each keeps the user's bytes:
 * Switchboard's entries are added and removed as whole pieces of text, so that removing them all
 * gives back the file as it was, and every edit is checked (the result parses, and nothing but
 * Switchboard's entries changed) before anything is written.
 */
export interface FileFormat {
  /** what the file is called in messages: "JSON", "TOML" */
  name: string;
  /** the new text of a file whose managed entries must be exactly `input.desired` (pure: no IO) */
  plan(input: PlanInput): PlanResult;
  /** the servers collection under `serversKey` (import, drift checks); none = no entries */
  entries(text: string, serversKey: string): FileEntries;
  /** the value of a user entry's text as import recorded it (PlannedImport.text) */
  entryValue(e: PlannedImport, serversKey: string): unknown;
  /**
   * The record of an entry with its text written afresh from `value`, in its place: for an entry
   * whose own text holds a secret in a form the record cannot cut out (state.json never holds one).
   */
  entryFromValue(e: PlannedImport, value: unknown, serversKey: string): PlannedImport;
}

/** JSON and JSONC (comments and trailing commas kept as they are): jsonc-plan.ts. */
function jsonFormat(name: string): FileFormat {
  return {
    name,
    plan: planFile,
    entryValue: (e) => entryValue(e.text),
    entryFromValue: (e, value) => ({ ...e, text: `${JSON.stringify(e.entry)}: ${JSON.stringify(value)}` }),
    entries(text, serversKey) {
      const root = parseJsonc(stripBom(text));
      if (!root || root.type !== 'object') return { ok: false, problem: 'the file does not parse' };
      const container = findNodeAtLocation(root, [serversKey]);
      if (!container || container.type !== 'object') return { ok: true, entries: [] };
      return {
        ok: true,
        entries: (container.children ?? []).map((prop) => {
          const valueNode = prop.children?.[1];
          return [
            String(prop.children?.[0]?.value),
            valueNode ? (getNodeValue(valueNode) as unknown) : undefined,
          ];
        }),
      };
    },
  };
}

/** Strict JSON files (the editor rejects comments). */
export const JSON_FORMAT = jsonFormat('JSON');
/** JSON with comments and trailing commas (the editor strips them). */
export const JSONC_FORMAT = jsonFormat('JSONC');
