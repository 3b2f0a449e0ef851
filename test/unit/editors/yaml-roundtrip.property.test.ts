import fc from 'fast-check';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { EDITOR_IDS, type EditorId } from '../../../shared/editors.ts';
import { EDITORS } from '../../../electron/core/editors/registry.ts';
import { syncText } from './helpers.ts';

// Generated YAML files as people keep them: comments on their own lines and after values, blank
// lines, nested mappings and lists, quoted and plain scalars, the servers collection present (with the
// user's own entries), empty, or absent, CRLF, no final line break. For each: sync then unsync gives
// back the exact bytes, and sync changes no setting but Switchboard's entries.

const yamlEditors = EDITOR_IDS.filter((id) => EDITORS[id].format.name === 'YAML');

const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/);
const comment = fc
  .string({ maxLength: 10 })
  .map(
    (t) =>
      '# ' +
      [...t]
        .map((c) => (c.charCodeAt(0) < 32 || '\u007f\u0085\u2028\u2029\ufeff'.includes(c) ? ' ' : c))
        .join(''),
  );
const scalar = fc.oneof(
  fc.integer().map(String),
  fc.boolean().map(String),
  fc.constantFrom('plain text', '"quoted: yes"', "'single'", 'null', '[a, b]', '{x: 1}'),
);
const topLine = fc.oneof(
  fc
    .tuple(key, scalar, fc.option(comment, { nil: undefined }))
    .map(([k, v, c]) => `${k}: ${v}${c ? ' ' + c : ''}`),
  comment,
  fc.constant(''),
  key.map((k) => `${k}:\n  nested: 1\n  list:\n    - a\n    - b`),
);

function userEntries(editor: EditorId): fc.Arbitrary<string[]> {
  const list = EDITORS[editor].serversKey === 'mcpServers';
  const entry = fc
    .constantFrom('mine', 'other', 'x-y')
    .map((n) =>
      list
        ? `  - name: ${n}\n    command: npx\n    args: [-y, ${n}]`
        : `  ${n}:\n    type: stdio\n    cmd: uvx # ${n}`,
    );
  return fc.uniqueArray(entry, { maxLength: 2 });
}

function doc(editor: EditorId): fc.Arbitrary<string> {
  const serversKey = EDITORS[editor].serversKey;
  return fc
    .record({
      before: fc.array(topLine, { maxLength: 4 }),
      collection: fc.constantFrom('absent', 'empty', 'entries'),
      entries: userEntries(editor),
      inside: fc.option(
        comment.map((c) => '  ' + c),
        { nil: undefined },
      ),
      after: fc.array(topLine, { maxLength: 3 }),
      eol: fc.constantFrom('\n', '\r\n'),
      finalEol: fc.boolean(),
    })
    .map((d) => {
      const lines = [...d.before];
      if (d.collection !== 'absent') {
        lines.push(`${serversKey}:`);
        if (d.collection === 'entries') {
          if (d.inside) lines.push(d.inside);
          lines.push(...d.entries);
        }
      }
      lines.push(...d.after);
      const text = lines.join('\n').replace(/\n/g, d.eol);
      return text + (d.finalEol && text ? d.eol : '');
    })
    .filter((t) => {
      const parsed = parseDocument(t, { uniqueKeys: true });
      return parsed.errors.length === 0 && (parsed.contents === null || typeof parsed.toJS() === 'object');
    });
}

const serversArb = fc.uniqueArray(fc.constantFrom('alpha', 'beta', 'my server', 'é'), { maxLength: 3 });

function settings(editor: EditorId, t: string | undefined): unknown {
  const value = (t?.trim() ? parseDocument(t).toJS() : {}) as Record<string, unknown> | null;
  const { [EDITORS[editor].serversKey]: servers, ...rest } = value ?? {};
  const list = Array.isArray(servers) ? servers : Object.values((servers ?? {}) as object);
  return {
    ...rest,
    own: list.filter(
      (e: { url?: string; uri?: string }) => !String(e.url ?? e.uri ?? '').includes('127.0.0.1:43'),
    ),
  };
}

/** The user's own entries in any order (one given back where its place was gone comes at the end). */
function sortedOwn(view: unknown): unknown {
  const { own, ...rest } = view as { own: unknown[] };
  return { ...rest, own: [...own].map((e) => JSON.stringify(e)).sort() };
}

describe('YAML editor files: sync then unsync gives back the exact bytes (property)', () => {
  it.each(yamlEditors)('%s', (editor) => {
    fc.assert(
      fc.property(doc(editor), serversArb, serversArb, (original, first, second) => {
        const a = syncText(editor, original, first);
        expect(settings(editor, a.text)).toEqual(settings(editor, original));
        const b = syncText(editor, a.text, second, a.layout, { port: 43200, token: 'rotated' });
        expect(settings(editor, b.text)).toEqual(settings(editor, original));
        const back = syncText(editor, b.text, [], b.layout, { port: 43200 });
        expect(back.text).toBe(original);
      }),
      { numRuns: 300 },
    );
  });

  it.each(yamlEditors)(
    '%s: import replaces user entries (in place or taken out), and unsync gives back the exact bytes',
    (editor) => {
      const targets = fc.constantFrom(undefined, 'alpha', 'beta', 'same', 'mine');
      fc.assert(
        fc.property(
          doc(editor),
          serversArb,
          fc.array(targets, { minLength: 3, maxLength: 3 }),
          serversArb,
          (original, before, mapping, later) => {
            // Some servers already synced, then an import of some of the user's entries (several may
            // run the same server), then a later sync adds others.
            const synced = syncText(editor, original, before);
            const adopt = new Map<string, string>();
            ['mine', 'other', 'x-y'].forEach((key, i) => {
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
            expect(back.text).toBe(original);

            // A later sync that drops servers (the imported ones too): every entry still comes back
            // with its value, and nothing else of the user's changes.
            const dropped = syncText(editor, imported.text, later, imported.layout);
            const undone = syncText(editor, dropped.text, [], dropped.layout, { restore: [record] });
            expect(undone.result.restored.sort()).toEqual(record.map((e) => e.entry).sort());
            expect(sortedOwn(settings(editor, undone.text))).toEqual(sortedOwn(settings(editor, original)));
          },
        ),
        { numRuns: 300 },
      );
    },
  );
});
