import { afterEach, describe, expect, it } from 'vitest';
import { LoopbackListener } from '../../../electron/core/oauth/loopback.ts';

let listener: LoopbackListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

describe('the loopback redirect of a sign-in', () => {
  it('listens on 127.0.0.1 only, on a free port, and takes only the answer with the state it was sent', async () => {
    listener = await LoopbackListener.open({ server: 'notes' });
    const redirect = new URL(listener.redirectUrl);
    expect(redirect.hostname).toBe('127.0.0.1');
    expect(redirect.pathname).toBe('/callback');
    expect(Number(redirect.port)).toBeGreaterThan(0);

    const answer = listener.expect('expected-state');
    const forged = await fetch(`${listener.redirectUrl}?code=stolen&state=other-state`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('out of date');

    const page = fetch(`${listener.redirectUrl}?code=the-code&state=expected-state`);
    const callback = await answer;
    expect(callback.code).toBe('the-code');
    callback.respond({ ok: true });
    const response = await page;
    expect(response.status).toBe(200);
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toContain('Signed in to notes');

    // Used once: the same answer again is refused.
    expect((await fetch(`${listener.redirectUrl}?code=the-code&state=expected-state`)).status).toBe(400);
  });

  it("fails the sign-in with the authorization server's own words when it refuses", async () => {
    listener = await LoopbackListener.open({ server: 'notes' });
    const refused = expect(listener.expect('s1')).rejects.toThrow(
      'the authorization server answered "access_denied": The user said no',
    );
    const page = await fetch(
      `${listener.redirectUrl}?error=access_denied&error_description=The+user+said+no&state=s1`,
    );
    await refused;
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('Not signed in to notes');
  });

  it('escapes what it shows, and refuses other paths and methods', async () => {
    listener = await LoopbackListener.open({ server: '<b>x</b>' });
    const answer = listener.expect('s');
    const page = fetch(`${listener.redirectUrl}?code=c&state=s`);
    (await answer).respond({ ok: false, message: 'bad <script>alert(1)</script>' });
    const text = await (await page).text();
    expect(text).not.toContain('<script>alert');
    expect(text).not.toContain('<b>x</b>');
    expect((await fetch(listener.redirectUrl.replace('/callback', '/other'))).status).toBe(404);
    expect((await fetch(listener.redirectUrl, { method: 'POST' })).status).toBe(404);
  });

  it('reuses the port a client was registered with while it is free, else takes another', async () => {
    const first = await LoopbackListener.open({ server: 'a' });
    const port = Number(new URL(first.redirectUrl).port);
    const second = await LoopbackListener.open({ server: 'b', preferredPort: port });
    expect(Number(new URL(second.redirectUrl).port)).not.toBe(port);
    await second.close();
    await first.close();
    listener = await LoopbackListener.open({ server: 'c', preferredPort: port });
    expect(Number(new URL(listener.redirectUrl).port)).toBe(port);
  });

  it('fails a waiting sign-in when it is closed', async () => {
    listener = await LoopbackListener.open({ server: 'notes' });
    const closed = expect(listener.expect('s')).rejects.toThrow('a new sign-in was started');
    await listener.close('a new sign-in was started');
    listener = undefined;
    await closed;
  });
});
