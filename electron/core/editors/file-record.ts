import type { EditorFileLayout, EditorSettings } from '../../../shared/schema/state.ts';

// What state.json keeps about an editor's file: the entries Switchboard wrote there, and its layout
// with the bridge ports those entries were written with.

/**
 * The names of the entries Switchboard wrote into `file` (ownership.ts). A file with no record but a
 * layout with ports was written by a Switchboard from before the record (undefined: the old rule,
 * until this sync records them); a file with neither has no entry of Switchboard's.
 */
export function writtenEntries(settings: EditorSettings, file: string): ReadonlySet<string> | undefined {
  if (settings.entries?.file === file) return new Set(settings.entries.names);
  if (settings.layout?.file === file && settings.layout.ports?.length) return undefined;
  return new Set();
}

/**
 * Records the layout a write left `file` in, and the port its entries use now (the last five ports
 * are kept, so entries written with an earlier port are still known as Switchboard's).
 */
export function recordLayout(
  s: EditorSettings,
  file: string,
  port: number,
  layout: EditorFileLayout | undefined,
  hasEntries: boolean,
): void {
  const ports = new Set(s.layout?.ports ?? []);
  if (hasEntries) ports.add(port);
  const keep = [...ports].slice(-5);
  if (layout) {
    const next: EditorFileLayout = { ...layout };
    if (keep.length) next.ports = keep;
    else delete next.ports;
    s.layout = stripUndefined(next);
  } else if (keep.length) {
    s.layout = { file, ports: keep };
  } else {
    delete s.layout;
  }
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
