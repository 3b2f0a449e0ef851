import { defineConfig } from 'vite';

/**
 * The stdio relay (electron/relay/main.mjs) as one self-contained ES module, .vite/relay/main.mjs.
 * Claude Desktop runs it as `<app binary> <…>/relay/main.mjs` with ELECTRON_RUN_AS_NODE=1 (see
 * electron/desktop/relay-command.ts). It imports nothing but Node's built-ins, so it can live outside
 * the asar (forge.config.ts unpacks .vite/relay) and load as a plain file. The `relay/main.*` name is
 * how editor sync recognises its own entries (electron/core/editors/claude-desktop.ts).
 */
export default defineConfig({
  build: {
    outDir: '.vite/relay',
    lib: { entry: 'electron/relay/main.mjs', formats: ['es'], fileName: () => 'main.mjs' },
    rollupOptions: { output: { codeSplitting: false } },
  },
});
