import { defineConfig } from 'vite';
import { BUNDLE_ALIAS, CJS_IMPORT_META } from './node-bundle.ts';

/**
 * The main process bundle (electron/shell/main.ts and the core it composes), built by Forge's Vite
 * plugin as CommonJS at .vite/build/main.cjs (Forge 8's default; package.json "main" names it).
 * CommonJS because it loads synchronously: the macOS `open-url` listener is registered before the
 * app finishes launching, which an ES module main (loaded asynchronously) does not guarantee.
 *
 * Everything is bundled except @napi-rs/keyring, whose native binding cannot be: the packaged app
 * keeps it (and its platform package) in node_modules, see build/forge/packaged-files.ts.
 */
export default defineConfig({
  define: CJS_IMPORT_META,
  resolve: { alias: BUNDLE_ALIAS },
  build: {
    rollupOptions: {
      // Forge adds electron and Node's built-ins.
      external: ['@napi-rs/keyring'],
      // One file: modules the core loads only when needed (the .mcpb tooling) are imported
      // dynamically, and a split chunk beside main.cjs would not be packaged.
      output: { inlineDynamicImports: true },
    },
  },
});
