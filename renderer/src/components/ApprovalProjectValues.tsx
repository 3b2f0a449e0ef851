import type { ApprovalOrigin } from '../../../shared/api.ts';
import { displayText } from '../../../shared/display-text.ts';
import { ProjectRequestValue } from './ProjectRequestValue.tsx';

/**
 * On a project server's approval card: the values its file asks for that were not given yet, each
 * with its field (the one the Projects row has). Approving stays possible: the approval is of what
 * runs, which names each value's keychain secret already; the value is a secret the server cannot
 * start without, given before or after approving.
 */
export function ApprovalProjectValues({ server, needs }: { server: string; needs: ApprovalOrigin['needs'] }) {
  if (needs.length === 0) return null;
  const one = needs.length === 1;
  return (
    <section data-testid="approval-needs" aria-label={`Values ${server} asks for`}>
      <h3 className="label">{one ? 'A value its file asks for' : 'Values its file asks for'}</h3>
      <div className="banner warn" role="status" data-testid="approval-needs-notice">
        <span>
          <strong>
            {server} cannot start until you give it {one ? 'this value' : 'these values'}.
          </strong>{' '}
          You can approve it before or after: the approval is of what runs, shown above, and the value is a
          secret kept in your keychain as this server’s own{' '}
          {needs.map((n, i) => (
            <span key={n.request}>
              {i > 0 ? ', ' : ''}
              <code>{displayText(n.secret)}</code>
            </span>
          ))}
          , passed on only as shown and never shown again.
        </span>
      </div>
      {needs.map((n) => (
        <ProjectRequestValue key={n.request} server={server} request={n.request} />
      ))}
    </section>
  );
}
