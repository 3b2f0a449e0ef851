import type { ServerStatus } from '../../../shared/status.ts';
import { useApi } from '../api/context.tsx';
import { useCommand } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ErrorText } from './Feedback.tsx';

/**
 * What the server's sandbox refused it, and the one step that allows it: the button adds the path to
 * its sandbox in servers.json (as `switchboard grant` does), and the server waits for approval of
 * that change, shown like any other.
 */
export function SandboxRefusal({ server }: { server: ServerStatus }) {
  const api = useApi();
  const grant = server.sandboxGrant;
  const allow = useCommand(
    () =>
      grant ? api.grantSandbox(server.name, { path: grant.path, access: grant.access }) : Promise.resolve(),
    [keys.status],
  );
  if (!server.sandboxRefused) return null;
  return (
    <span data-testid="sandbox-refused">
      {server.sandboxRefused}
      {grant ? (
        <>
          {' '}
          <button
            type="button"
            className="small"
            disabled={allow.isPending}
            onClick={() => allow.mutate(undefined)}
            title={grant.command}
          >
            {grant.access === 'write' ? 'Allow writing' : 'Allow reading'} (asks approval)
          </button>
          {allow.error ? <ErrorText error={allow.error} /> : null}
        </>
      ) : null}
    </span>
  );
}
