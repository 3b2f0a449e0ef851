import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CSP_NONCE_PLACEHOLDER } from '../../../electron/core/bridge/ui-static.ts';
import { resolveAppAsset, serveAppAsset } from '../../../electron/desktop/app-protocol.ts';

const root = resolve('/app/.vite/renderer/main_window');

describe('app:// paths', () => {
  it('maps the app origin onto the renderer folder', () => {
    expect(resolveAppAsset(root, 'app://switchboard/')).toBe(join(root, 'index.html'));
    expect(resolveAppAsset(root, 'app://switchboard/index.html')).toBe(join(root, 'index.html'));
    expect(resolveAppAsset(root, 'app://switchboard/assets/index-abc.js?v=1#x')).toBe(
      join(root, 'assets', 'index-abc.js'),
    );
  });

  it.each([
    'app://switchboard/../main.cjs',
    'app://switchboard/assets/../../build/main.cjs',
    'app://switchboard/%2e%2e/build/main.cjs',
    'app://switchboard/.%2E/build/main.cjs',
    'app://switchboard/assets%2f..%2f..%2fbuild%2fmain.cjs',
    'app://switchboard/..%5cbuild%5cmain.cjs',
    'app://switchboard/assets\\..\\..\\main.cjs',
    'app://switchboard/index.html%00.png',
    'app://switchboard/./index.html',
    'app://other/index.html',
    'file:///app/.vite/renderer/main_window/index.html',
    'https://switchboard/index.html',
    'not a url',
  ])('refuses %s', (url) => {
    expect(resolveAppAsset(root, url)).toBeUndefined();
  });
});

describe('app:// responses', () => {
  const files: Record<string, string> = {
    [join(root, 'index.html')]:
      `<meta property="csp-nonce" nonce="${CSP_NONCE_PLACEHOLDER}"><script type="module" src="./assets/a.js"></script>`,
    [join(root, 'assets', 'a.js')]: 'console.log(1)',
  };
  const readFile = async (file: string) => (file in files ? Buffer.from(files[file] ?? '') : undefined);
  let n = 0;
  const nonce = () => `nonce${++n}`;

  it('serves index.html with a fresh nonce in the page and in its strict CSP', async () => {
    const first = await serveAppAsset(root, 'app://switchboard/', readFile, nonce);
    const second = await serveAppAsset(root, 'app://switchboard/', readFile, nonce);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = first.headers['content-security-policy'] ?? '';
    const used = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(used).toBeDefined();
    expect(String(first.body)).toContain(`nonce="${used}"`);
    expect(String(first.body)).not.toContain(CSP_NONCE_PLACEHOLDER);
    expect(second.headers['content-security-policy']).not.toBe(csp);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('serves assets with their type, the CSP and nosniff', async () => {
    const answer = await serveAppAsset(root, 'app://switchboard/assets/a.js', readFile, nonce);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('answers 404 for missing files and refused paths, never reading outside the folder', async () => {
    const read: string[] = [];
    const spy = async (file: string) => {
      read.push(file);
      return readFile(file);
    };
    expect((await serveAppAsset(root, 'app://switchboard/nope.js', spy, nonce)).status).toBe(404);
    expect((await serveAppAsset(root, 'app://switchboard/%2e%2e/x', spy, nonce)).status).toBe(404);
    expect(read).toEqual([join(root, 'nope.js')]);
  });
});
