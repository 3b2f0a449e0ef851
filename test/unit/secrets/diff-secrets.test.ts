import { describe, expect, it } from 'vitest';
import { withoutSecrets } from '../../../electron/core/secrets/diff-secrets.ts';

// The dry-run diff shows the user's own entries as context: literal secrets in them are hidden in
// every file format editors use, not only JSON.
const SECRET = 'ghp_0123456789abcdefghijABCDEFGHIJ0123456789';

describe('editor diffs hide literal secrets', () => {
  it('in JSON', () => {
    const out = withoutSecrets(`   "GITHUB_TOKEN": "${SECRET}",`);
    expect(out).not.toContain(SECRET);
  });

  it('in TOML (key = "value", inline tables, literal strings)', () => {
    for (const line of [
      ` GITHUB_TOKEN = "${SECRET}"`,
      ` env = { GITHUB_TOKEN = "${SECRET}", LOG = "1" }`,
      ` "quoted key" = '${SECRET}'`,
      `+http_headers = { Authorization = "Bearer ${SECRET}" }`,
    ])
      expect(withoutSecrets(line), line).not.toContain(SECRET);
    expect(withoutSecrets(' LOG = "debug"')).toBe(' LOG = "debug"');
  });

  it('in YAML (key: value, quoted or plain, list items)', () => {
    for (const line of [
      `       GITHUB_TOKEN: ${SECRET}`,
      `       GITHUB_TOKEN: "${SECRET}"  # mine`,
      `-      Authorization: Bearer ${SECRET}`,
      `   - token: '${SECRET}'`,
    ])
      expect(withoutSecrets(line), line).not.toContain(SECRET);
    expect(withoutSecrets('     cmd: uvx')).toBe('     cmd: uvx');
  });

  it("keeps Switchboard's own placeholders and references readable", () => {
    expect(withoutSecrets('+      Authorization: Bearer <goose token>')).toBe(
      '+      Authorization: Bearer <goose token>',
    );
    expect(withoutSecrets(' TOKEN = "${secret:gh}"')).toBe(' TOKEN = "${secret:gh}"');
    expect(withoutSecrets('+url = "http://127.0.0.1:43117/mcp/alpha"')).toBe(
      '+url = "http://127.0.0.1:43117/mcp/alpha"',
    );
  });
});
