import type { AddedServer } from '../../../shared/ui-api.ts';
import { argumentNumber } from '../lib/format.ts';

/** GITHUB_TOKEN, "Argument 4", "The URL": where a moved secret was, in the form's words. */
function Place({ at }: { at: string }) {
  const n = argumentNumber(at);
  if (n !== undefined) return <>Argument {n}</>;
  return at === 'url' ? <>The URL</> : <code>{at}</code>;
}

/**
 * What an add did with literal secrets: each went to the keychain, and servers.json got a reference
 * in its place. Said after every add that moved one, so nobody wonders where their token went.
 */
export function MovedSecrets({ server, named = false }: { server: AddedServer; named?: boolean }) {
  if (server.secrets.length === 0) return null;
  return (
    <ul className="moved-secrets" data-testid={`moved-secrets-${server.name}`}>
      {server.secrets.map((secret) => (
        <li key={secret.key}>
          {named ? <strong>{server.name}: </strong> : null}
          <Place at={secret.key} /> looked like a secret, so it went to your keychain as{' '}
          <code>{secret.name}</code>; <code>servers.json</code> says{' '}
          <code>{`\${secret:${secret.name}}`}</code> in its place.
        </li>
      ))}
    </ul>
  );
}
