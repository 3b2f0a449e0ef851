import fc from 'fast-check';
import { getNodeValue, parseTree } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { EDITOR_IDS, type EditorId } from '../../../shared/editors.ts';
import { EDITORS } from '../../../electron/core/editors/registry.ts';
import { ownership, syncText } from './helpers.ts';

// Generated JSONC documents with everything people's settings files have: comments of both kinds in
// every legal place, trailing commas, CRLF, a BOM, tabs or spaces, blank lines, one-line and
// multi-line objects, unrelated settings, the user's own server entries, odd unicode. For each:
// sync then unsync gives back the exact bytes, and sync changes nothing but the managed entries.

interface Style {
  eol: string;
  unit: string;
}
type Value =
  | { kind: 'scalar'; value: string | number | boolean | null }
  | { kind: 'array'; items: Value[] }
  | { kind: 'object'; obj: Obj };
interface Entry {
  key: string;
  value: Value;
  /** a block comment before the key */
  before: string | undefined;
  /** an end-of-line comment after the entry (multi-line objects) */
  after: string | undefined;
  /** a whole-line comment above the entry (multi-line objects) */
  above: string | undefined;
  blank: boolean;
}
interface Obj {
  multiline: boolean;
  trailing: boolean;
  entries: Entry[];
  /** how an empty object looks */
  empty: 'tight' | 'space' | 'lines' | 'block-comment' | 'line-comment';
}

const oddText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom(
    'héllo wörld',
    '日本語',
    '🙂👩‍👩‍👧',
    '\u2028\u2029',
    'tab\there',
    'quote"s \\ back',
    '﻿bom-like',
    'ע"ב',
    '\u0000\u001f',
  ),
);
const commentText = oddText.map((s) => s.replace(/\*\//g, '* /').replace(/[\r\n\u2028\u2029]/g, ' '));
const keyText = fc.oneof(
  fc.constantFrom('theme', 'ui_font_size', 'editor.tabSize', 'files.exclude', 'projects', 'x'),
  oddText,
);

function objArb(
  depth: number,
  entryValue: fc.Arbitrary<Value>,
  keys: fc.Arbitrary<string> = keyText,
): fc.Arbitrary<Obj> {
  return fc.record({
    multiline: depth === 0 ? fc.constant(true) : fc.boolean(),
    trailing: fc.boolean(),
    entries: fc.uniqueArray(
      fc.record({
        key: keys,
        value: entryValue,
        before: fc.option(commentText, { nil: undefined, freq: 4 }),
        after: fc.option(commentText, { nil: undefined, freq: 4 }),
        above: fc.option(commentText, { nil: undefined, freq: 4 }),
        blank: fc.boolean(),
      }),
      { maxLength: 4, selector: (e) => e.key },
    ),
    empty: fc.constantFrom('tight', 'space', 'lines', 'block-comment', 'line-comment'),
  });
}

const scalar: fc.Arbitrary<Value> = fc.oneof(
  oddText.map((value) => ({ kind: 'scalar' as const, value })),
  fc
    .oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null))
    .map((value) => ({ kind: 'scalar' as const, value })),
);
const { value: valueArb } = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }).map((items) => ({ kind: 'array' as const, items })),
    objArb(1, tie('value')).map((obj) => ({ kind: 'object' as const, obj })),
  ),
}));

/** A user's own server entry, as people paste them. */
const userServer: fc.Arbitrary<Value> = fc.oneof(
  fc
    .record({
      cmd: fc.constantFrom('npx', 'uvx', 'docker', '/usr/bin/node'),
      arg: fc.string({ maxLength: 10 }),
    })
    .map(({ cmd, arg }) => obj({ command: cmd, args: ['-y', arg] })),
  fc
    .constantFrom('https://mcp.example.com/mcp', 'http://localhost:3000/mcp', 'http://127.0.0.1:9/mcp/x')
    .map((url) => obj({ url })),
);
function obj(record: Record<string, unknown>): Value {
  const toValue = (v: unknown): Value =>
    Array.isArray(v)
      ? { kind: 'array', items: v.map(toValue) }
      : typeof v === 'object' && v !== null
        ? {
            kind: 'object',
            obj: {
              multiline: true,
              trailing: false,
              empty: 'tight',
              entries: Object.entries(v).map(([key, value]) => plain(key, toValue(value))),
            },
          }
        : { kind: 'scalar', value: v as string };
  return toValue(record);
}
function plain(key: string, value: Value): Entry {
  return { key, value, before: undefined, after: undefined, above: undefined, blank: false };
}

const DESIRED_NAMES = ['alpha', 'beta', 'gamma', 'delta_1', 'e-2'];
const serverNames = fc.constantFrom('alpha', 'user-a', 'github', 'my server', 'ünï', 'beta');

interface Doc {
  text: string;
  strict: boolean;
}

function render(o: Obj, indent: string, style: Style, strict: boolean): string {
  const inner = indent + style.unit;
  if (o.entries.length === 0) {
    const empty = strict && (o.empty === 'block-comment' || o.empty === 'line-comment') ? 'space' : o.empty;
    switch (empty) {
      case 'tight':
        return '{}';
      case 'space':
        return '{ }';
      case 'lines':
        return `{${style.eol}${indent}}`;
      case 'block-comment':
        return '{ /* none yet */ }';
      case 'line-comment':
        return `{${style.eol}${inner}// add servers here${style.eol}${indent}}`;
    }
  }
  const trailing = o.trailing && !strict;
  if (!o.multiline) {
    const parts = o.entries.map(
      (e) =>
        `${e.before && !strict ? `/*${e.before}*/ ` : ''}${JSON.stringify(e.key)}: ${renderValue(e.value, inner, style, strict)}`,
    );
    return `{ ${parts.join(', ')}${trailing ? ',' : ''} }`;
  }
  let out = '{';
  o.entries.forEach((e, i) => {
    const last = i === o.entries.length - 1;
    if (e.blank) out += style.eol;
    if (e.above && !strict) out += `${style.eol}${inner}//${e.above}`;
    out += `${style.eol}${inner}${e.before && !strict ? `/*${e.before}*/ ` : ''}${JSON.stringify(e.key)}: ${renderValue(e.value, inner, style, strict)}`;
    if (!last || trailing) out += ',';
    if (e.after && !strict) out += ` //${e.after}`;
  });
  return `${out}${style.eol}${indent}}`;
}

function renderValue(v: Value, indent: string, style: Style, strict: boolean): string {
  if (v.kind === 'scalar') return JSON.stringify(v.value);
  if (v.kind === 'array') return `[${v.items.map((i) => renderValue(i, indent, style, strict)).join(', ')}]`;
  return render(v.obj, indent, style, strict);
}

function docArb(serversKey: string): fc.Arbitrary<Doc> {
  return fc
    .record({
      strict: fc.boolean(),
      eol: fc.constantFrom('\n', '\r\n'),
      unit: fc.constantFrom('\t', '  ', '    '),
      bom: fc.boolean(),
      header: fc.option(commentText, { nil: undefined }),
      footer: fc.option(fc.constantFrom('\n', '\r\n', '\n\n', ' // end\n', ''), { nil: undefined }),
      root: objArb(0, valueArb),
      servers: fc.option(objArb(1, userServer, serverNames), { nil: undefined, freq: 3 }),
      serversAt: fc.nat(),
      emptyRoot: fc.boolean(),
    })
    .map((d) => {
      const root: Obj =
        d.emptyRoot && !d.servers
          ? { ...d.root, entries: [] }
          : { ...d.root, entries: [...d.root.entries.filter((e) => e.key !== serversKey)] };
      if (d.servers) {
        const at = d.serversAt % (root.entries.length + 1);
        root.entries.splice(at, 0, {
          ...plain(serversKey, { kind: 'object', obj: d.servers }),
          after: undefined,
        });
      }
      const style = { eol: d.eol, unit: d.unit };
      const header = d.header !== undefined && !d.strict ? `//${d.header}${d.eol}` : '';
      const footer = d.footer === undefined ? '' : d.strict ? d.footer.replace(' // end', '') : d.footer;
      return {
        text: `${d.bom ? '\ufeff' : ''}${header}${render(root, '', style, d.strict)}${footer}`,
        strict: d.strict,
      };
    });
}

/** The settings with the managed entries taken out (and a servers object that only held them). */
function userView(editor: EditorId, text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return {};
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const root = parseTree(body, [], { allowTrailingComma: true });
  const value = (root ? getNodeValue(root) : {}) as Record<string, unknown>;
  const key = EDITORS[editor].serversKey;
  const servers = value[key] as Record<string, unknown> | undefined;
  if (servers && typeof servers === 'object') {
    const own = ownership();
    value[key] = Object.fromEntries(
      Object.entries(servers).filter(([, v]) => !EDITORS[editor].pointsAtBridge(v, own)),
    );
    // A servers object Switchboard added holds only its entries: without them it is no setting of the user's.
    if (Object.keys(value[key] as object).length === 0)
      return Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));
  }
  return value;
}

function isSubsequence(small: string, big: string): boolean {
  let i = 0;
  for (let j = 0; j < big.length && i < small.length; j++) if (big[j] === small[i]) i++;
  return i === small.length;
}

/** FC_RUNS=5000 for a longer search. */
const RUNS = Number(process.env.FC_RUNS ?? 400);
// The JSON and JSONC editors (toml-roundtrip.property.test.ts has the TOML ones).
const editorArb = fc.constantFrom(...EDITOR_IDS.filter((id) => EDITORS[id].format.name.startsWith('JSON')));
const namesArb = fc.subarray(DESIRED_NAMES, { minLength: 1 });

describe('editor files: sync then unsync gives back the exact bytes (property)', () => {
  it('for generated JSONC documents of every editor', () => {
    fc.assert(
      fc.property(
        editorArb.chain((editor) =>
          fc.tuple(fc.constant(editor), docArb(EDITORS[editor].serversKey), namesArb, namesArb),
        ),
        ([editor, doc, first, second]) => {
          const synced = syncText(editor, doc.text, first);
          // A later sync with a different set, then unsync: still the user's bytes.
          const resynced = syncText(editor, synced.text, second, synced.layout);
          const back = syncText(editor, resynced.text, [], resynced.layout);
          expect(back.text).toBe(doc.text);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('sync changes nothing outside the managed entries (only insertions; settings, user entries and comments intact)', () => {
    fc.assert(
      fc.property(
        editorArb.chain((editor) =>
          fc.tuple(fc.constant(editor), docArb(EDITORS[editor].serversKey), namesArb),
        ),
        ([editor, doc, names]) => {
          const { text, result } = syncText(editor, doc.text, names);
          expect(text).toBeDefined();
          const after = text ?? '';
          // Nothing of the original was deleted or replaced: every byte is still there, in order.
          expect(isSubsequence(doc.text, after)).toBe(true);
          expect(userView(editor, after)).toEqual(userView(editor, doc.text));
          // Every wanted server is there unless a user entry already has its name.
          for (const name of names)
            expect(result.added.includes(name) || result.clashes.includes(name)).toBe(true);
          // Strict-JSON files (Claude Desktop, Cursor, …) stay strict JSON.
          if (doc.strict) expect(() => JSON.parse(after.replace(/^\ufeff/, ''))).not.toThrow();
          // A second sync has nothing to do.
          const again = syncText(editor, after, names, result.layout).result;
          expect(again.changed).toBe(false);
          expect([...again.added, ...again.updated, ...again.removed]).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('import replaces user entries (in place, renamed, or taken out), and unsync gives back the exact bytes', () => {
    const targets = fc.constantFrom(undefined, 'alpha', 'beta', 'github', 'srv-1', 'srv-2', 'same');
    fc.assert(
      fc.property(
        editorArb.chain((editor) =>
          fc.tuple(
            fc.constant(editor),
            docArb(EDITORS[editor].serversKey),
            fc.subarray(DESIRED_NAMES),
            fc.array(targets, { minLength: 6, maxLength: 6 }),
            fc.subarray(DESIRED_NAMES),
          ),
        ),
        ([editor, doc, before, mapping, later]) => {
          // Some servers already synced, then an import of some of the user's entries (several may
          // run the same server, or one Switchboard already serves), then a later sync adds others.
          const synced = syncText(editor, doc.text, before);
          const pool = ['alpha', 'user-a', 'github', 'my server', 'ünï', 'beta'];
          const adopt = new Map<string, string>();
          pool.forEach((key, i) => {
            const target = mapping[i];
            if (target !== undefined) adopt.set(key, target === 'same' ? key : target);
          });
          const servers = [...new Set([...before, ...adopt.values()])];
          const imported = syncText(editor, synced.text, servers, synced.layout, { adopt });
          const record = imported.result.imported;
          expect(record.map((e) => e.entry).sort()).toEqual([...imported.result.adopted].sort());
          const resynced = syncText(
            editor,
            imported.text,
            [...new Set([...servers, ...later])],
            imported.layout,
          );
          const back = syncText(editor, resynced.text, [], resynced.layout, { restore: [record] });
          expect(back.result.notRestored).toEqual([]);
          expect(back.result.restored.sort()).toEqual(record.map((e) => e.entry).sort());
          expect(back.text).toBe(doc.text);

          // A later sync that drops servers (the imported ones too): every entry still comes back,
          // as it was, and nothing else of the user's changes.
          const dropped = syncText(editor, imported.text, later, imported.layout);
          const undone = syncText(editor, dropped.text, [], dropped.layout, { restore: [record] });
          expect(undone.result.restored.sort()).toEqual(record.map((e) => e.entry).sort());
          expect(userView(editor, undone.text)).toEqual(userView(editor, doc.text));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('without the remembered layout, unsync still never breaks a file or touches user settings', () => {
    fc.assert(
      fc.property(
        editorArb.chain((editor) =>
          fc.tuple(fc.constant(editor), docArb(EDITORS[editor].serversKey), namesArb),
        ),
        ([editor, doc, names]) => {
          const synced = syncText(editor, doc.text, names);
          const back = syncText(editor, synced.text, [], undefined);
          const out = back.text ?? '';
          expect(parseTree(out.replace(/^\ufeff/, ''), [], { allowTrailingComma: true })).toBeDefined();
          expect(userView(editor, out)).toEqual(userView(editor, doc.text));
          if (doc.strict) expect(() => JSON.parse(out.replace(/^\ufeff/, '') || '{}')).not.toThrow();
        },
      ),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });
});
