import { getNodeValue, parseTree } from 'jsonc-parser';
import { lineColumn } from '../../../shared/jsonc-errors.ts';
import { detectFormat } from '../config/edit.ts';
import { stripBom } from '../fs/bom.ts';
import { planStart, type PlanInput, type PlannedImport, type PlanResult } from './file-plan.ts';
import { adoptedInPlace, entryChanges, takenOutServer } from './entry-changes.ts';
import { checkResult } from './jsonc-edit-guard.ts';
import { insertProperties, removeProperties, replaceEntries, rootInfo } from './jsonc-entries.ts';
import { lenient, restoredValues, undoImports } from './jsonc-give-back.ts';
import { locate } from './jsonc-locate.ts';
import { between, cut, paste } from './jsonc-window.ts';

const NEW_FILE = '{}\n';

/**
 * Computes the new text of one editor file: managed entries added, updated and removed so that they
 * are exactly `desired`; user entries, comments and everything else left byte for byte. Pure: no IO.
 *
 * The file is parsed once (strict JSON first: fast for large app-owned files like ~/.claude.json);
 * every edit then happens on the text of the servers object alone, cut out with the indentation of
 * its line, so the cost does not grow with the rest of the file.
 */
export function planFile(input: PlanInput): PlanResult {
  const { serversKey } = input;
  const start = planStart(input, NEW_FILE);
  const { original, empty, bom, body } = start;
  let { layout } = start;

  const located = locate(body);
  if (!located.ok) return located;
  const { root, strict } = located;
  let container = root.props.find((p) => p.key === serversKey);
  if (container && body[container.valueOffset] !== '{') {
    const { line, column } = lineColumn(body, container.valueOffset);
    return {
      ok: false,
      problem: `"${serversKey}" is not a JSON object (line ${line}, column ${column})`,
      line,
      column,
    };
  }
  // Line endings and indentation, from the start of the file (enough to tell, and cheap for big files).
  const format = detectFormat(body.length > 65_536 ? body.slice(0, 65_536) : body);

  // The servers object as it is, and what the sync changes in it (entry-changes.ts: who is whose,
  // which user entry import's servers take the place of, what is added, replaced, removed).
  let window = container ? cut(body, container) : undefined;
  const existing: [string, unknown][] = [];
  if (window) {
    const node = parseTree(window.text, [], { allowTrailingComma: true, disallowComments: false });
    for (const prop of node?.children ?? []) {
      const valueNode = prop.children?.[1];
      existing.push([String(prop.children?.[0]?.value), valueNode ? getNodeValue(valueNode) : undefined]);
    }
  }
  const changes = entryChanges(existing, input);
  const { added, updated, removed, clashes, adopted, takenOut, toAdd, userBefore } = changes;
  const imported: PlannedImport[] = [];
  let restored: string[] = [];
  let notRestored: { entry: string; why: string }[] = [];
  const replace = new Map(
    [...changes.replace].map(([name, { server, entry }]) => [name, { key: server, value: entry }]),
  );

  let text = body;
  let rootNow = root;
  let rootChanged = false;
  if (window && container) {
    let w = window.text;
    if (input.restore?.length && input.desired.size === 0) {
      const undone = undoImports(w, input.restore, input.isManaged, format, layout.serversForm);
      w = undone.text;
      ({ restored, notRestored } = undone);
      if (rootInfo(w).props.length === 0) layout.serversForm = undefined;
    } else {
      if (changes.toRemove.size) {
        const result = removeProperties(w, rootInfo(w), changes.toRemove, layout.serversForm);
        w = result.text;
        if (result.emptied) layout.serversForm = undefined;
      }
      // Taken out one at a time, from the last: each with what unsync needs to put it back exactly.
      const out = new Set(takenOut);
      for (let i = rootInfo(w).props.length - 1; i >= 0; i--) {
        const info = rootInfo(w);
        const prop = info.props[i];
        if (!prop || !out.has(prop.key)) continue;
        out.delete(prop.key);
        const prev = info.props[i - 1];
        const next = info.props[i + 1];
        const own = w.slice(prop.offset, prop.end);
        const lead = w.slice(prev ? prev.end : info.open + 1, prop.offset);
        const trail = w.slice(prop.end, next ? next.offset : info.close);
        w = removeProperties(w, info, (_, at) => at === i).text;
        imported.push({
          entry: prop.key,
          server: takenOutServer(input, prop.key),
          text: own,
          place: 'taken-out',
          gap: { prev: prev?.key ?? null, next: next?.key ?? null, lead, trail, left: between(w, i - 1) },
        });
      }
      if (replace.size) {
        const info = rootInfo(w);
        for (const prop of info.props) {
          // a user entry import replaces (the others replaced are Switchboard's, updated)
          const claim = adoptedInPlace(changes, prop.key);
          if (!claim) continue;
          imported.push({
            entry: prop.key,
            server: claim.server,
            text: w.slice(prop.offset, prop.end),
            place: 'replaced',
          });
        }
        w = replaceEntries(w, info, replace, format);
      }
      if (toAdd.length) {
        const info = rootInfo(w);
        const result = insertProperties(w, info, toAdd, format);
        w = result.text;
        if (info.props.length === 0) layout.serversForm = result.form;
      }
    }
    ({ text, root: rootNow, container } = paste(text, rootNow, container, window, w));
    window = { ...window, text: w };
  } else if (toAdd.length) {
    // 3. No servers object yet: Switchboard adds one (and remembers it did), then the entries.
    const rootWasEmpty = root.props.length === 0;
    const made = insertProperties(text, root, [[serversKey, {}]], format);
    const keyAt = made.keyOffsets[0] ?? 0;
    const open = keyAt + JSON.stringify(serversKey).length + 2;
    if (made.text[open] !== '{' || made.text[open + 1] !== '}') {
      return { ok: false, problem: 'internal error: could not add the servers object; nothing was written' };
    }
    // The new object is the root's last property; nothing before it moved, the closing brace did.
    container = { key: serversKey, offset: keyAt, valueOffset: open, end: open + 2 };
    rootNow = {
      open: root.open,
      close: root.close + made.text.length - text.length,
      props: [...root.props, container],
    };
    text = made.text;
    rootChanged = true;
    layout.containerCreated = true;
    if (rootWasEmpty) layout.rootForm = made.form;
    if (empty) layout.fileWas = { existed: original !== undefined, text: original ?? '' };
    window = cut(text, container);
    const result = insertProperties(window.text, rootInfo(window.text), toAdd, format);
    layout.serversForm = result.form;
    ({ text, root: rootNow, container } = paste(text, rootNow, container, window, result.text));
    window = { ...window, text: result.text };
  }

  // 4. A servers object Switchboard created goes again once empty; so does a file it created.
  if (container && window) {
    const info = rootInfo(window.text);
    if (info.props.length === 0) {
      layout.serversForm = undefined;
      const inside = window.text.slice(info.open + 1, info.close);
      if (layout.containerCreated && inside.trim() === '') {
        const rootOnly = rootNow.props.length === 1;
        text = removeProperties(
          text,
          rootNow,
          new Set([serversKey]),
          rootOnly ? layout.rootForm : undefined,
        ).text;
        rootChanged = true;
        layout.containerCreated = undefined;
        layout.rootForm = undefined;
      }
    }
  }

  let finalText: string | undefined;
  if (text === body) {
    finalText = original;
  } else if (layout.fileWas && text === NEW_FILE) {
    finalText = layout.fileWas.existed ? layout.fileWas.text : undefined;
    layout = { file: input.file, ports: layout.ports };
  } else {
    finalText = bom + text;
  }
  const summary = { added, updated, removed, clashes, adopted, imported, restored, notRestored };
  if (finalText === original)
    return { ok: true, text: original, changed: false, ...summary, layout: input.layout };
  if (finalText !== undefined && finalText.trim() !== '') {
    const problem = checkResult({
      after: stripBom(finalText),
      serversKey,
      // An entry given back may bring the comments or trailing comma the user's file had before import.
      strict: strict && !(input.restore ?? []).flat().some((e) => restored.includes(e.entry) && lenient(e)),
      valueBefore: located.value,
      window: window?.text.slice(window.lead.length),
      rootChanged,
      input,
      userBefore,
      adopted,
      clashes,
      restored: restoredValues(input.restore, restored),
    });
    if (problem) return { ok: false, problem };
  }
  return { ok: true, text: finalText, changed: true, ...summary, layout };
}
