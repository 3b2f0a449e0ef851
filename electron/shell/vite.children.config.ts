import { defineConfig } from 'vite';
import { CHILD_SCRIPTS } from '../core/child-script.ts';
import { BUNDLE_ALIAS, CJS_IMPORT_META } from './node-bundle.ts';

/**
 * The core's child scripts (electron/core/child-script.ts) as CommonJS bundles of their own,
 * .vite/children/NAME.cjs: the main process and the CLI start them with their own binary as Node
 * (ELECTRON_RUN_AS_NODE=1 in the app). A script run through the caller's `import.meta.url` would run
 * the caller's bundle instead. They stay in app.asar beside the CLI (Node mode reads asar files) so that
 * @napi-rs/keyring, external as in the other bundles, resolves to the app's node_modules.
 */
export default defineConfig({
  define: CJS_IMPORT_META,
  resolve: { alias: BUNDLE_ALIAS },
  build: {
    outDir: '.vite/children',
    emptyOutDir: true,
    minify: false,
    lib: {
      entry: Object.fromEntries(
        Object.entries(CHILD_SCRIPTS).map(([name, source]) => [name, `electron/core/${source}.ts`]),
      ),
      formats: ['cjs'],
      fileName: (_format, name) => `${name}.cjs`,
    },
    rollupOptions: { external: ['@napi-rs/keyring', /^node:/] },
  },
});
