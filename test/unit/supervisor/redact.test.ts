import { describe, expect, it } from 'vitest';
import { RedactingLineSplitter, Redactor } from '../../../electron/core/logs/redact.ts';

describe('Redactor', () => {
  it('replaces every occurrence of every secret', () => {
    const r = new Redactor(['hunter22', 'sk-abc123']);
    expect(r.redact('a hunter22 b hunter22 c sk-abc123')).toBe('a [redacted] b [redacted] c [redacted]');
  });

  it('ignores values shorter than 4 characters and empty ones', () => {
    const r = new Redactor(['', 'on', 'abc', 'abcd']);
    expect(r.redact('on abc abcd')).toBe('on abc [redacted]');
  });

  it('treats regex metacharacters literally', () => {
    const r = new Redactor(['a.b*c(d)$']);
    expect(r.redact('x a.b*c(d)$ y aXbbbcd')).toBe('x [redacted] y aXbbbcd');
  });

  it('replaces the longer of two overlapping secrets whole', () => {
    const r = new Redactor(['token', 'token-extended']);
    expect(r.redact('token-extended and token')).toBe('[redacted] and [redacted]');
  });

  it('scrubs each line of a multi-line secret (logs are per line)', () => {
    const r = new Redactor(['-----BEGIN KEY-----\nMIIEsecretbody\n-----END KEY-----']);
    expect(r.redact('MIIEsecretbody')).toBe('[redacted]');
  });

  it('scrubs the secret base64-, base64url-, hex- and URL-encoded too, also inside a longer encoded value', () => {
    const secret = 'p@ss w/rd?=ÿ+~hunter2';
    const r = new Redactor([secret]);
    const bytes = Buffer.from(secret);
    const forms = [
      bytes.toString('base64'),
      bytes.toString('base64url'),
      bytes.toString('hex'),
      bytes.toString('hex').toUpperCase(),
      encodeURIComponent(secret),
      encodeURIComponent(secret).toLowerCase(),
      new URLSearchParams({ q: secret }).toString().slice('q='.length), // form encoding: space as +
    ];
    for (const form of forms) expect(r.redact(`x ${form} y`), form).toBe('x [redacted] y');
    // HTTP Basic auth: user:password encoded together, at each of base64's three alignments.
    for (const user of ['u', 'us', 'use', 'user']) {
      const basic = Buffer.from(`${user}:${secret}`).toString('base64');
      const shown = r.redact(`Authorization: Basic ${basic}`);
      expect(shown, user).toContain('[redacted]');
      // what is left of the encoded value is at most the user name and a character either side
      expect(shown.replace('[redacted]', '').length, user).toBeLessThanOrEqual(
        'Authorization: Basic '.length + Math.ceil(((user.length + 1) * 8) / 6) + 4,
      );
    }
    // Ordinary text with the secret's short encodings nowhere in it is left alone.
    expect(r.redact('GET /items?page=2 200 in 4 ms')).toBe('GET /items?page=2 200 in 4 ms');
  });

  it('scrubs the secret as JSON \\u escapes, \\x escapes, colon- or space-separated hex, and in any letter case', () => {
    const secret = 'ghp_Tok3nValue42';
    const r = new Redactor([secret]);
    const hex = Buffer.from(secret).toString('hex');
    const pairs = hex.match(/../g) ?? [];
    const forms = [
      [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
      [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`).join(''),
      pairs.map((p) => `\\x${p}`).join(''),
      pairs.map((p) => `\\x${p.toUpperCase()}`).join(''),
      pairs.join(':'),
      pairs.join(':').toUpperCase(),
      pairs.join(' '),
      secret.toLowerCase(),
      secret.toUpperCase(),
      Buffer.from(secret).toString('base64'),
    ];
    for (const form of forms) expect(r.redact(`say ${form} end`), form).toBe('say [redacted] end');
    // JSON.stringify's own escapes of a secret with a quote and a backslash in it
    const quoted = 'pa"ss\\word!';
    const q = new Redactor([quoted]);
    expect(q.redact(`{"token":${JSON.stringify(quoted)}}`)).toBe('{"token":"[redacted]"}');
  });

  it('passes text through when it knows no secret', () => {
    expect(new Redactor().redact('nothing to hide')).toBe('nothing to hide');
  });
});

describe('RedactingLineSplitter', () => {
  function split(secrets: string[], chunks: (string | Buffer)[], max?: number): string[] {
    const lines: string[] = [];
    const s = new RedactingLineSplitter(new Redactor(secrets), (l) => lines.push(l), max);
    for (const c of chunks) s.push(c);
    s.end();
    return lines;
  }

  it('catches a secret split across chunks', () => {
    expect(split(['supersecret'], ['key=super', 'sec', 'ret done\nnext'])).toEqual([
      'key=[redacted] done',
      'next',
    ]);
  });

  it('catches a secret cut across two lines, wherever the cut falls', () => {
    const secret = 'sk_live_4f9a8b7c6d5e';
    for (let cut = 1; cut < secret.length; cut++) {
      const lines = split([secret], [`token ${secret.slice(0, cut)}\n${secret.slice(cut)} used\n`]);
      const shown = lines.join('\n');
      // No six characters of it in a row stay, on either side of the cut.
      for (let i = 0; i + 6 <= secret.length; i++)
        expect(shown, `cut at ${cut}: ${shown}`).not.toContain(secret.slice(i, i + 6));
      expect(lines[1]?.endsWith(' used'), `cut at ${cut}`).toBe(true);
    }
    // hex-encoded and wrapped by a program at a fixed width
    const hex = Buffer.from(secret).toString('hex');
    const wrapped = split([secret], [`${hex.slice(0, 25)}\n${hex.slice(25)}\n`]);
    expect(wrapped.join('\n')).not.toContain(hex.slice(20, 30));
    // ordinary lines are left alone
    expect(split([secret], ['nothing here\nsk_ and more\n'])).toEqual(['nothing here', 'sk_ and more']);
  });

  it('splits lines, drops CR, keeps empty lines, emits the unterminated tail at the end', () => {
    expect(split([], ['a\r\nb\n\nc'])).toEqual(['a', 'b', '', 'c']);
  });

  it('decodes multi-byte characters split across chunks', () => {
    const bytes = Buffer.from('héllo ✓\n');
    expect(split([], [bytes.subarray(0, 2), bytes.subarray(2, 9), bytes.subarray(9)])).toEqual(['héllo ✓']);
  });

  it('cuts an over-long line into pieces without ever cutting through a secret', () => {
    const secret = 'SECRETSECRET';
    const text = 'x'.repeat(95) + secret + 'y'.repeat(50);
    // Feed it one character at a time: every cut point is tried.
    const lines = split([secret], [...text, '\n'], 100);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join('')).toBe('x'.repeat(95) + '[redacted]' + 'y'.repeat(50));
    for (const l of lines) expect(l).not.toMatch(/SECRET|ECRET|SECRE/);
  });
});
