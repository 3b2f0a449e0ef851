import { problemList, type JsonProblem } from '../lib/json-lint.ts';

/**
 * What is wrong with the JSON in an editor, each message once with the line it is on (the editor
 * marks the places). Derived from the text every time, so nothing stays once it is fixed.
 */
export function JsonProblems({ text, problems }: { text: string; problems: readonly JsonProblem[] }) {
  const list = problemList(text, problems);
  if (list.length === 0) return null;
  return (
    <div className="field-error" role="alert" data-testid="json-problems">
      {list.map((p) => (
        <p key={p.message}>
          <span className="problem-line">line {p.line}:</span> {p.message}
        </p>
      ))}
    </div>
  );
}
