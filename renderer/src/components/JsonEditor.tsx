import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import {
  bracketMatching,
  foldGutter,
  indentOnInput,
  syntaxHighlighting,
  defaultHighlightStyle,
} from '@codemirror/language';
import { forceLinting, linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import {
  EditorView,
  highlightActiveLine,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  placeholder as placeholderText,
} from '@codemirror/view';
import { useEffect, useRef } from 'react';
import { HIDDEN_CHARACTER_IN_EDITOR } from '../../../shared/display-text.ts';
import { checkServerJson, type JsonProblem } from '../lib/json-lint.ts';

/** The CSP nonce `switchboard serve` put in this page (style elements need it); none elsewhere. */
function cspNonce(): string {
  const nonce = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce ?? '';
  return nonce.startsWith('__') ? '' : nonce;
}

/** Problems of the text as you type, each where it is: by default those of one server entry. */
function problemsLinter(lint: { current: (text: string) => readonly JsonProblem[] }) {
  return linter(
    (view): Diagnostic[] => {
      const end = view.state.doc.length;
      return lint.current(view.state.doc.toString()).map((p) => ({
        from: Math.min(p.from, end),
        to: Math.min(Math.max(p.to, p.from), end),
        severity: 'error',
        message: p.message,
      }));
    },
    { delay: 150 },
  );
}

const serverEntryProblems = (text: string) => checkServerJson(text).problems;

const theme = EditorView.theme({
  '&': {
    fontSize: '13px',
    border: '1px solid var(--border)',
    borderRadius: '6px',
    background: 'var(--input-bg)',
  },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '1px' },
  '.cm-content': { fontFamily: 'var(--mono)', caretColor: 'var(--text)', color: 'var(--text)' },
  '.cm-gutters': { background: 'var(--panel-2)', color: 'var(--muted)', border: 'none' },
  '.cm-activeLine': { background: 'var(--row-hover)' },
  // As tall as the entry (a typical one is 5–15 lines), up to most of the window; never a big blank box.
  '.cm-scroller': { minHeight: '6lh', maxHeight: '60vh' },
  '.cm-tooltip': { background: 'var(--panel)', color: 'var(--text)', border: '1px solid var(--border)' },
});

/**
 * CodeMirror 6 for the raw JSON of one server entry. Uncontrolled inside (CodeMirror owns the
 * document); `value` changes from outside (a hand edit of the file) replace the text.
 */
export default function JsonEditor({
  id,
  value,
  onChange,
  label = 'Server entry as JSON',
  lint = serverEntryProblems,
  placeholder,
}: {
  id: string;
  value: string;
  onChange: (v: string) => void;
  /** the editor's accessible name */
  label?: string;
  /** what is wrong with the text, where (default: one server entry, checked with the core's schema) */
  lint?: (text: string) => readonly JsonProblem[];
  /** shown while the editor is empty */
  placeholder?: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChangeRef = useRef(onChange);
  const lintRef = useRef(lint);
  useEffect(() => {
    onChangeRef.current = onChange;
    lintRef.current = lint;
  }, [onChange, lint]);

  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          // Bidi controls, zero-width and other invisible characters show as marked placeholders.
          highlightSpecialChars({ addSpecialChars: HIDDEN_CHARACTER_IN_EDITOR }),
          foldGutter(),
          lintGutter(),
          history(),
          indentOnInput(),
          bracketMatching(),
          highlightActiveLine(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          json(),
          problemsLinter(lintRef),
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          theme,
          EditorView.cspNonce.of(cspNonce()),
          EditorView.contentAttributes.of({ id, 'aria-label': label }),
          ...(placeholder ? [placeholderText(placeholder)] : []),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) onChangeRef.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor is created once; later `value` changes are applied below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // What counts as a problem can change without the text changing (a server added meanwhile).
  useEffect(() => {
    if (view.current) forceLinting(view.current);
  }, [lint]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const current = editor.state.doc.toString();
    if (current !== value) editor.dispatch({ changes: { from: 0, to: current.length, insert: value } });
  }, [value]);

  return (
    <>
      <div ref={host} className="json-editor" data-testid="json-editor" />
      <p className="hint">Tab indents; press Esc, then Tab, to move on from the editor.</p>
    </>
  );
}
