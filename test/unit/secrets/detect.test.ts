import { randomBytes, randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  findLiteralSecrets,
  isRandomLooking,
  literalSecretReason,
} from '../../../electron/core/secrets/detect.ts';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const random = (length: number, alphabet = BASE62) =>
  Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');

// Fixed samples (generated once) so the table never flakes; the randomised check is at the end.
const FLAGGED: [string, string][] = [
  ['GITHUB_TOKEN', 'ghp_JahwcXGXlOX8qQzHQMxQzyxLELDfx4SHKvtJ'],
  ['SOME_SETTING', 'ghp_eVbaedVkFY88AvM3C4YO95PdJXo3utydDnjR'],
  [
    'GITHUB_PERSONAL_ACCESS_TOKEN',
    'github_pat_11APJn09ghgnetOH9lENK6x4LfrtpC3cLuqR8PBwSvezek43e4ftMaeKgLiZzh',
  ],
  ['LLM', 'sk-TQBvQuQ8BKScfAgdUPRFrg9U7zpK94oaMwJkrNTClp5sNi0h'],
  [
    'ANTHROPIC',
    'sk-ant-api03-ock2Omk8i6lvsfOVEP2oigAihM2Tv3SELuXVIucnBd2VSUC9QA16sNB6EziD4GOGolAEtYpcYIIdBv7O',
  ],
  ['AWS_ACCESS_KEY_ID', 'AKIAIOSFODNN7EXAMPLE'],
  ['ID', 'AKIAIOSFODNN7EXAMPLE'],
  ['AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['S', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['SESSION', 'efb51e94351684c214783ed916a04aba'],
  ['SESSION', 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6'],
  ['SIGNING', 'toHMeQgnWsNC9R6gNoHy174QShktMdS+O2URg4M9'],
  ['Authorization', 'Bearer abc123'],
  ['authorization', 'token abc'],
  ['Proxy-Authorization', 'Basic dXNlcjpwYXNz'],
  ['X-API-Key', 'abcd1234efgh'],
  ['GITHUB_PAT', 'whatever123'],
  ['githubPat', 'abc'],
  ['DB_PASSWORD', 'hunter2'],
  ['POSTGRES_PASSWORD', 'postgres'],
  ['CLIENT_SECRET', 'short'],
  ['SERVICE_CREDENTIALS', '{"key":"v"}'],
  ['SLACK_BOT_TOKEN', 'xoxb-352954482663-0kI0u1CIMrCTIF7QOooWHX2z'],
  ['API_KEY', 'hunter2'],
  ['DATABASE_URL', 'postgres://me:s3cretpass@db.internal/app'],
  ['WEBHOOK', 'https://hooks.example.com/services/T024BE7LD/B01ABCD2EFG/Imc8LUHltrbT7luS4MRETLaC'],
  ['OPTS', '--api-key=biZSK1q6Dk8CwVSwctfCLKEknv'],
  ['JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
];

const NOT_FLAGGED: [string, string][] = [
  ['PATH', '/usr/local/bin:/usr/bin:/bin'],
  ['HOME', '/home/me/projects'],
  ['WORKSPACE', 'C:\\Users\\me\\Documents\\Projects'],
  ['FS_ROOT', '~/Documents/notes'],
  ['ALLOWED_DIRS', '/home/me/projects,/tmp'],
  ['NODE_ENV', 'production'],
  ['DEBUG', 'true'],
  ['PORT', '8080'],
  ['LOG_LEVEL', 'info'],
  ['TZ', 'Europe/Berlin'],
  ['LANG', 'en_US.UTF-8'],
  ['BASE_URL', 'https://api.example.com/v1/mcp'],
  ['TOKEN_URL', 'https://auth.example.com/oauth/token'],
  ['DB_URL', 'postgres://me@db:5432/app'],
  ['MODEL', 'claude-3-5-sonnet-20241022'],
  ['MODEL', 'anthropic/claude-sonnet-4-20250514'],
  ['SERVER_NAME', 'MyCompanyInternalServer2024'],
  ['HOST', 'postgres-primary-01.internal'],
  ['VERSION', 'v1.2.3-beta.4+build.20240101'],
  ['PROJECT_ID', '550e8400-e29b-41d4-a716-446655440000'],
  ['COMMIT', '3f2a9c1'],
  ['NODE_OPTIONS', '--max-old-space-size=4096'],
  [
    'User-Agent',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  ],
  ['Accept', 'application/json, text/event-stream'],
  // secret-like names with values that are plainly not secrets
  ['MAX_TOKENS', '4096'],
  ['TOKENIZER', 'cl100k_base'],
  ['GOOGLE_APPLICATION_CREDENTIALS', '/home/me/.config/gcloud/key.json'],
  ['SORT_KEY', 'name'],
  ['KEYBOARD_LAYOUT', 'us'],
  ['PATTERN', '*.ts'],
  ['ENABLE_API_KEY_AUTH', 'false'],
  ['GITHUB_TOKEN', ''],
  // references are not literals
  ['GITHUB_TOKEN', '${secret:github-token}'],
  ['Authorization', 'Bearer ${secret:docs}'],
  ['API_KEY', '${env:API_KEY}'],
  ['DATABASE_URL', 'postgres://${env:DB_USER}:${secret:db}@db/app'],
  ['PAIR', '${secret:a}:${secret:b}'],
];

describe('literal secrets in a server config', () => {
  it.each(FLAGGED)('flags %s = %s', (key, value) => {
    expect(literalSecretReason(key, value)).toBeTypeOf('string');
  });

  it.each(NOT_FLAGGED)('does not flag %s = %s', (key, value) => {
    expect(literalSecretReason(key, value)).toBeUndefined();
  });

  it('reports field, key and reason but never the value', () => {
    const token = `ghp_${random(36)}`;
    const stdio = findLiteralSecrets({ env: { GITHUB_TOKEN: token, NODE_ENV: 'production' } });
    expect(stdio).toEqual([
      {
        field: 'env',
        key: 'GITHUB_TOKEN',
        path: ['env', 'GITHUB_TOKEN'],
        reason: 'looks like a GitHub token',
        start: 0,
        end: token.length,
      },
    ]);
    const remote = findLiteralSecrets({
      headers: { Authorization: 'Bearer abc123', Accept: 'application/json' },
    });
    // Only the credential is the secret: "Bearer " stays in the file in front of the reference.
    expect(remote).toEqual([
      {
        field: 'headers',
        key: 'Authorization',
        path: ['headers', 'Authorization'],
        reason: expect.any(String) as string,
        start: 'Bearer '.length,
        end: 'Bearer abc123'.length,
      },
    ]);
    const all = JSON.stringify([stdio, remote]);
    expect(all).not.toContain(token);
    expect(all).not.toContain('abc123');
  });

  it('finds secrets in args: by flag name, inline flag value, or random shape, with their exact span', () => {
    const key = `sk-${random(32)}`;
    const opaque = random(40);
    const args = ['-y', 'some-server', '--api-key', key, `--token=${opaque}`, '--port', '8080', 'plain'];
    const found = findLiteralSecrets({ args });
    expect(found.map((f) => [f.key, f.path, args[Number(f.path[1])]?.slice(f.start, f.end)])).toEqual([
      ['args[3]', ['args', 3], key],
      ['args[4]', ['args', 4], opaque],
    ]);
    // A flag with a harmless value, or a secret-like flag over a reference, is left alone.
    expect(
      findLiteralSecrets({ args: ['--password-file', '/run/secrets/db', '--key', '${secret:k}'] }),
    ).toEqual([]);
  });

  it('finds secrets after -p, in -e/--env KEY=VALUE and in -H/--header "Name: value", with their exact span', () => {
    const spans = (args: string[]) =>
      findLiteralSecrets({ args }).map((f) => [f.key, args[Number(f.path[1])]?.slice(f.start, f.end)]);
    // password flags: sshpass -p, mysql -pPASSWORD, --pass
    expect(spans(['sshpass', '-p', 'S3cret!', 'ssh', 'host'])).toEqual([['args[2]', 'S3cret!']]);
    expect(spans(['mysql', '-uroot', '-pHunter2!', 'db'])).toEqual([['args[2]', 'Hunter2!']]);
    expect(spans(['tool', '--pass', 'Tr0ub4dor&3'])).toEqual([['args[2]', 'Tr0ub4dor&3']]);
    // docker-style environment settings: only the value, judged as the variable it sets
    expect(
      spans(['run', '-i', '--rm', '-e', 'GITHUB_TOKEN=abc123def', '--env', 'API_KEY=xyz789', 'image']),
    ).toEqual([
      ['args[4]', 'abc123def'],
      ['args[6]', 'xyz789'],
    ]);
    expect(spans(['run', '--env=DB_PASSWORD=letmein99', 'image'])).toEqual([['args[1]', 'letmein99']]);
    // headers: the part after the auth scheme
    expect(
      spans(['mcp-remote', 'https://x.example/sse', '--header', 'Authorization: Bearer abc123']),
    ).toEqual([['args[3]', 'abc123']]);
    expect(spans(['curl', '-H', 'X-Api-Key:k3y-v4lue-here', 'https://x.example'])).toEqual([
      ['args[2]', 'k3y-v4lue-here'],
    ]);
    expect(spans(['tool', '--header=Authorization: Basic dXNlcjpwYXNz'])).toEqual([
      ['args[1]', 'dXNlcjpwYXNz'],
    ]);
  });

  it('leaves -p ports, packages and versions, harmless -e settings and header placeholders alone', () => {
    for (const args of [
      ['-y', '-p', '@modelcontextprotocol/server-everything', 'mcp-server-everything'],
      ['-p', 'typescript@5.4', 'tsc'],
      ['run', '-p', '8080:80', '-p', '127.0.0.1:9000:9000/tcp', 'image'],
      ['run', '-p', '3.12', 'server'],
      ['psql', '-p', '5432', '-h', 'localhost'],
      ['run', '-e', 'LOG_LEVEL=debug', '-e', 'GITHUB_TOKEN', '-e', 'API_KEY=${secret:k}', 'image'],
      ['node', '-e', 'console.log(1)'],
      ['mcp-remote', 'https://x.example/sse', '--header', 'Authorization:${AUTH_HEADER}'],
      ['curl', '-H', 'Accept: application/json', '-H', 'Authorization: Bearer ${secret:api}'],
      ['docker', '-H', 'tcp://127.0.0.1:2375', 'ps'],
      ['-print', '-parallel', '4'],
    ]) {
      expect(findLiteralSecrets({ args }), args.join(' ')).toEqual([]);
    }
  });

  it('finds the secret part of a URL: a password, a secret-like query parameter, a random path segment', () => {
    const spanOf = (url: string) => {
      const [f] = findLiteralSecrets({ url });
      return f ? url.slice(f.start, f.end) : undefined;
    };
    expect(spanOf('postgresql://admin:S3cr3tPassw0rd@db.internal/prod')).toBe('S3cr3tPassw0rd');
    expect(spanOf('https://api.example.com/mcp?apikey=hunter2hunter2&format=json')).toBe('hunter2hunter2');
    const hook = random(24);
    expect(spanOf(`https://hooks.example.com/services/T0/${hook}`)).toBe(hook);
    expect(spanOf('https://api.example.com/mcp?format=json&page=2')).toBeUndefined();
    expect(spanOf('https://user:${secret:db}@db.internal/prod')).toBeUndefined();
    expect(spanOf('https://api.example.com/mcp?apikey=${secret:k}')).toBeUndefined();
  });

  it('finds a literal written next to a reference, so it can be moved on its own', () => {
    const value = '${env:USER}:s3cr3tLiteralValue';
    const [f] = findLiteralSecrets({ env: { API_KEY: value } });
    expect(f && value.slice(f.start, f.end)).toBe('s3cr3tLiteralValue');
  });

  it('accepts a config that keeps its secrets in references', () => {
    expect(
      findLiteralSecrets({
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${secret:github-token}', PATH: '/usr/bin' },
      }),
    ).toEqual([]);
    expect(findLiteralSecrets({ headers: { Authorization: 'Bearer ${secret:docs}' } })).toEqual([]);
  });

  it('flags nearly all random keys of 24+ characters under innocent names', () => {
    // A statistical check of the entropy thresholds: random base62 keys must not slip through.
    let missed = 0;
    for (let i = 0; i < 2000; i++) if (!isRandomLooking(random(24 + (i % 40)))) missed++;
    expect(missed / 2000).toBeLessThan(0.03);
    let hexMissed = 0;
    for (let i = 0; i < 2000; i++) if (!isRandomLooking(randomBytes(16).toString('hex'))) hexMissed++;
    expect(hexMissed / 2000).toBeLessThan(0.005);
  });
});
