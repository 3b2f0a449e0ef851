import { defineConfig } from 'vite';

// Sandboxed preloads must be CommonJS in one file and may require only electron's renderer modules:
// Forge's preload defaults do exactly that (.vite/build/preload.cjs); nothing to add.
export default defineConfig({});
