import { defineConfig } from 'vite';

// The main process bundle (electron/shell/main.ts and the core it composes). Native and
// platform-bound packages stay external and ship in node_modules inside the asar.
export default defineConfig({
  build: {
    rollupOptions: {
      external: ['electron', '@napi-rs/keyring', 'chokidar', 'conf', 'cross-spawn'],
      output: { format: 'es', entryFileNames: '[name].js' },
    },
  },
});
