import { diffLines } from '../lib/diff.ts';

/** Lines removed and added, marked with −/+ and words as well as colour. */
export function Diff({
  before,
  after,
  label,
}: {
  before: readonly string[];
  after: readonly string[];
  label: string;
}) {
  const lines = diffLines(before, after);
  return (
    <pre className="diff" aria-label={label}>
      {lines.map((line, i) => (
        <span key={i} className={`diff-${line.kind}`}>
          <span className="diff-mark" aria-hidden="true">
            {line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' '}
          </span>
          <span className="visually-hidden">
            {line.kind === 'added' ? 'added: ' : line.kind === 'removed' ? 'removed: ' : ''}
          </span>
          {line.text}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
