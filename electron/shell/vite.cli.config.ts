import { defineConfig } from 'vite';
import { BUNDLE_ALIAS, CJS_IMPORT_META } from './node-bundle.ts';

/**
 * The desktop app's CLI (electron/shell/cli-main.ts) as CommonJS at .vite/cli/main.cjs, run by the
 * `switchboard` command the app installs (electron/desktop/cli-command.ts) as `<app binary>
 * …/app.asar/.vite/cli/main.cjs` with ELECTRON_RUN_AS_NODE=1. CommonJS, as the main bundle: it loads
 * from inside app.asar. Each command stays a chunk of its own, loaded when it runs. @napi-rs/keyring
 * stays external: the app keeps it in node_modules (build/forge/packaged-files.ts). So does Vite: only a
 * source checkout builds its UI (electron/headless/ui-build.ts), an installed app ships it built.
 */
export default defineConfig({
  define: CJS_IMPORT_META,
  resolve: { alias: BUNDLE_ALIAS },
  build: {
    outDir: '.vite/cli',
    emptyOutDir: true,
    minify: false,
    lib: { entry: 'electron/shell/cli-main.ts', formats: ['cjs'], fileName: () => 'main.cjs' },
    rollupOptions: { external: ['@napi-rs/keyring', 'vite', /^node:/] },
  },
});
