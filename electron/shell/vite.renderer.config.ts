import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vite';
import renderer from '../../renderer/vite.config.ts';

/**
 * The renderer as Forge builds it for the desktop app: renderer/vite.config.ts unchanged, except that
 * the output goes where Forge and the main process expect it (.vite/renderer/main_window) instead of
 * renderer/dist, which `npm run build:renderer` keeps for headless mode. The path is absolute because
 * the renderer config sets its own root (renderer/), against which Forge's relative outDir would land.
 */
const outDir = fileURLToPath(new URL('../../.vite/renderer/main_window', import.meta.url));

export default defineConfig(mergeConfig(renderer, { build: { outDir, emptyOutDir: true } }));
