import type { PackageReview } from '../../../shared/store.ts';

/**
 * The parts of what an approval allows, as Approvals and an update's review show them: the package it
 * installs and runs from the store (with what changed since the approved version), what it can reach
 * in its sandbox, and the secrets and environment it gets. Every line comes display-safe from the core.
 * `testId` prefixes the parts' test ids (`approval-package`, `update-package`, …).
 */
export function PackageParts({ review, testId }: { review: PackageReview; testId: string }) {
  return (
    <>
      <h3 className="label">The package it installs and runs from Switchboard’s store</h3>
      <pre className="command" data-testid={`${testId}-package`}>
        {review.lines.join('\n')}
      </pre>
      {review.changes ? (
        <>
          <h3 className="label">Changed since the approved version</h3>
          <ul className="references" data-testid={`${testId}-package-changes`}>
            {review.changes.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </>
      ) : null}
      {review.notes.length ? (
        <ul className="references" data-testid={`${testId}-package-notes`}>
          {review.notes.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

export function AccessParts({ access, testId }: { access: readonly string[]; testId: string }) {
  if (access.length === 0) return null;
  const unsandboxed = access[0]?.startsWith('NOT sandboxed') ?? false;
  return (
    <>
      <h3 className="label">{unsandboxed ? 'What it can reach' : 'What it can reach in its sandbox'}</h3>
      <ul className={unsandboxed ? 'access unsandboxed' : 'access'} data-testid={`${testId}-access`}>
        {access.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </>
  );
}

export function ReferenceParts({ references, testId }: { references: readonly string[]; testId: string }) {
  if (references.length === 0) return null;
  return (
    <>
      <h3 className="label">Your secrets and environment it gets</h3>
      <ul className="references" data-testid={`${testId}-references`}>
        {references.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </>
  );
}
