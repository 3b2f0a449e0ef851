import type { ReactNode } from 'react';
import { errorText } from '../lib/format.ts';

/** An error in words, announced to screen readers. */
export function ErrorText({ error, children }: { error?: unknown; children?: ReactNode }) {
  if (error === undefined || error === null)
    return children ? (
      <p className="error" role="alert">
        {children}
      </p>
    ) : null;
  return (
    <p className="error" role="alert">
      {children}
      {errorText(error)}
    </p>
  );
}

/** What is (not) here, and what to do next. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <h3>{title}</h3>
      {children}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted loading" aria-live="polite">
      Loading {what}…
    </p>
  );
}
