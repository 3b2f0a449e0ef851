import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ProxyOptions } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
/** `switchboard serve` swaps this for a fresh nonce on every index.html it serves (ui-static.ts). */
const CSP_NONCE_PLACEHOLDER = '__SWITCHBOARD_CSP_NONCE__';

/**
 * Dev server only: SWITCHBOARD_API=http://127.0.0.1:43117 proxies /api to a running
 * `switchboard serve`, presenting the bridge's own Origin (its guard refuses any other). /login is
 * the dev server's own page (the SPA), which trades the code through /api and keeps the session in
 * the dev server's origin.
 */
function devProxy(): Record<string, ProxyOptions> | undefined {
  const target = process.env.SWITCHBOARD_API;
  if (!target) return undefined;
  const options: ProxyOptions = {
    target,
    changeOrigin: true,
    configure: (proxy) =>
      proxy.on('proxyReq', (req) => req.getHeader('origin') && req.setHeader('origin', target)),
  };
  return { '/api': options };
}

// The renderer is a static bundle: served by `switchboard serve` at / (headless) and loaded by the
// Electron shell. Relative asset URLs work in both. Views are lazy chunks; CodeMirror only loads with
// the raw JSON editor.
export default defineConfig({
  root,
  base: './',
  plugins: [react()],
  // CodeMirror's style elements carry the nonce (EditorView.cspNonce, read from the meta tag).
  html: { cspNonce: CSP_NONCE_PLACEHOLDER },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2023',
    sourcemap: false,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 600,
  },
  server: { port: 5173, strictPort: true, ...(devProxy() ? { proxy: devProxy() } : {}) },
});
