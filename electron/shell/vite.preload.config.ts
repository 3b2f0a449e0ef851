import { defineConfig } from 'vite';

// Sandboxed preloads must be CommonJS and cannot require anything but electron's renderer modules.
export default defineConfig({
  build: {
    rollupOptions: {
      external: ['electron'],
      output: { format: 'cjs', inlineDynamicImports: true, entryFileNames: '[name].js' },
    },
  },
});
