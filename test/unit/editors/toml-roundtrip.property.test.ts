import fc from 'fast-check';
import { getStaticTOMLValue, parseTOML } from 'toml-eslint-parser';
import { describe, expect, it } from 'vitest';
import { EDITOR_IDS } from '../../../shared/editors.ts';
import { EDITORS } from '../../../electron/core/editors/registry.ts';
import { syncText } from './helpers.ts';

// Generated TOML files with what people's config.toml has: comments on their own lines and after
// values, blank lines, top-level keys, tables and sub-tables, arrays of tables, the user's own
// servers as tables, dotted keys or under [mcp_servers], literal and multi-line strings, CRLF, a BOM,
// no final line break. For each: sync then unsync gives back the exact bytes, and sync changes no
// setting but Switchboard's entries.

const tomlEditors = EDITOR_IDS.filter((id) => EDITORS[id].format.name === 'TOML');

const bare = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
/** Control characters (which TOML wants escaped, and comments may not hold) become spaces. */
const noControls = (t: string) =>
  [...t]
    .map((c) =>
      (c.charCodeAt(0) < 32 && c !== '\t') || c === '\u007f' || c === '\u2028' || c === '\u2029' ? ' ' : c,
    )
    .join('');
const text = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.constantFrom('héllo', '日本語', '🙂', 'tab\there', 'q"uote', 'back\\slash', '\u2028'),
);
const comment = text.map((t) => '#' + noControls(t));
const basic = text.map((t) => JSON.stringify(t).replace(/\x7f/g, '\\u007F'));
const value = fc.oneof(
  basic,
  text.filter((t) => !t.includes("'") && noControls(t) === t).map((t) => `'${t}'`),
  fc.integer().map(String),
  fc.boolean().map(String),
  fc.constant('"""\nmulti\nline\n"""'),
  fc.constant('["a", 1, { x = "y" }]'),
  fc.constant('{ inline = true, n = 2 }'),
);
const kvLine = fc
  .tuple(bare, value, fc.option(comment, { nil: undefined }))
  .map(([k, v, c]) => `${k} = ${v}${c ? ' ' + c : ''}`);
const extras = fc.array(fc.oneof(comment, fc.constant('')), { maxLength: 2 });

/** One block of the file: a few lines, optionally under a header. */
const block = fc.oneof(
  fc
    .tuple(extras, fc.array(kvLine, { maxLength: 3 }))
    .map(([e, kv]) => ({ header: undefined, lines: [...e, ...kv] })),
  fc
    .tuple(
      fc.constantFrom('[profiles.fast]', '[tui]', '[[skills]]', '[projects."/home/ann/x"]'),
      extras,
      fc.array(kvLine, { maxLength: 3 }),
    )
    .map(([header, e, kv]) => ({ header, lines: [...e, ...kv] })),
  fc.constant({ header: '[mcp_servers.mine]', lines: ['command = "npx"', 'args = ["-y", "x"]'] }),
  fc.constant({ header: '[mcp_servers.mine.env]', lines: ['K = "v" # mine'] }),
  fc.constant({ header: '[mcp_servers]', lines: ['dotted.url = "https://example.com/mcp"'] }),
  fc.constant({
    header: '[mcp_servers.other] # the other one',
    lines: ['# how it runs', "command = 'uvx'", 'args = [', '  "other-mcp", # pinned', ']'],
  }),
);

const doc = fc
  .record({
    top: fc.array(kvLine, { maxLength: 3 }),
    blocks: fc.array(block, { maxLength: 5 }),
    eol: fc.constantFrom('\n', '\r\n'),
    bom: fc.boolean(),
    finalEol: fc.constantFrom('', 'eol', 'blank'),
  })
  .map((d) => {
    const seen = new Set<string>();
    const lines = [...d.top];
    const used = new Set(d.top.map((l) => l.split(' ')[0]));
    for (const b of d.blocks) {
      if (b.header && b.header !== '[[skills]]') {
        // one of [mcp_servers.other] and [mcp_servers]'s `other = …` (the same key)
        if (b.header.startsWith('[mcp_servers.other]') && seen.has('[mcp_servers]')) continue;
        if (seen.has(b.header)) continue;
        seen.add(b.header);
      }
      if (b.header) lines.push(b.header);
      const keys = new Set<string>();
      for (const l of b.lines) {
        const k = l.split(' ')[0] ?? '';
        if (l.includes(' = ') && (keys.has(k) || (!b.header && used.has(k)))) continue;
        keys.add(k);
        if (!b.header) used.add(k);
        lines.push(l);
      }
    }
    const body = lines.join(d.eol);
    const end = d.finalEol === 'eol' ? d.eol : d.finalEol === 'blank' ? d.eol + d.eol : '';
    return (d.bom ? '\ufeff' : '') + body + (body ? end : '');
  })
  .filter((t) => {
    try {
      parseTOML(t.replace(/^\ufeff/, ''));
      return true;
    } catch {
      return false;
    }
  });

const serversArb = fc.uniqueArray(fc.constantFrom('alpha', 'beta', 'my server', 'é'), { maxLength: 3 });

function settings(t: string | undefined): { rest: Record<string, unknown>; own: unknown[] } {
  if (!t?.replace(/^\ufeff/, '').trim()) return { own: [], rest: {} };
  const value = getStaticTOMLValue(parseTOML(t.replace(/^\ufeff/, ''))) as Record<string, unknown>;
  const { mcp_servers: servers, ...rest } = value;
  const own = Object.entries((servers ?? {}) as Record<string, { url?: unknown }>)
    .filter(([, e]) => !String(e.url ?? '').startsWith('http://127.0.0.1:43'))
    .sort(([a], [b]) => a.localeCompare(b));
  return { rest, own };
}

describe('TOML editor files: sync then unsync gives back the exact bytes (property)', () => {
  it.each(tomlEditors)('%s', (editor) => {
    fc.assert(
      fc.property(doc, serversArb, serversArb, (original, first, second) => {
        const a = syncText(editor, original, first);
        expect(settings(a.text)).toEqual(settings(original));
        const b = syncText(editor, a.text, second, a.layout, { port: 43200, token: 'rotated' });
        expect(settings(b.text)).toEqual(settings(original));
        const back = syncText(editor, b.text, [], b.layout, { port: 43200 });
        expect(back.text).toBe(original);
      }),
      { numRuns: 300 },
    );
  });

  it.each(tomlEditors)(
    '%s: import replaces user entries (in place, taken out, or key lines), and unsync gives back the exact bytes',
    (editor) => {
      const targets = fc.constantFrom(undefined, 'alpha', 'beta', 'same', 'mine');
      fc.assert(
        fc.property(
          doc,
          serversArb,
          fc.array(targets, { minLength: 3, maxLength: 3 }),
          serversArb,
          (original, before, mapping, later) => {
            // Some servers already synced, then an import of some of the user's entries (several may
            // run the same server), then a later sync adds others.
            const synced = syncText(editor, original, before);
            const adopt = new Map<string, string>();
            ['mine', 'dotted', 'other'].forEach((key, i) => {
              const target = mapping[i];
              if (target !== undefined) adopt.set(key, target === 'same' ? key : target);
            });
            const servers = [...new Set([...before, ...adopt.values()])];
            const imported = syncText(editor, synced.text, servers, synced.layout, { adopt });
            const record = imported.result.imported;
            expect(record.map((e) => e.entry).sort()).toEqual([...imported.result.adopted].sort());
            expect(settings(imported.text).rest).toEqual(settings(original).rest);
            const resynced = syncText(
              editor,
              imported.text,
              [...new Set([...servers, ...later])],
              imported.layout,
            );
            const back = syncText(editor, resynced.text, [], resynced.layout, { restore: [record] });
            expect(back.result.notRestored).toEqual([]);
            expect(back.result.restored.sort()).toEqual(record.map((e) => e.entry).sort());
            expect(back.text).toBe(original);

            // A later sync that drops servers (the imported ones too): every entry still comes back
            // with its value, and nothing else of the user's changes.
            const dropped = syncText(editor, imported.text, later, imported.layout);
            const undone = syncText(editor, dropped.text, [], dropped.layout, { restore: [record] });
            expect(undone.result.restored.sort()).toEqual(record.map((e) => e.entry).sort());
            expect(settings(undone.text)).toEqual(settings(original));
          },
        ),
        { numRuns: 300 },
      );
    },
  );
});
