import { fileURLToPath } from 'node:url';

/**
 * The sources are ES modules; CommonJS output has no import.meta, so the CommonJS bundles (main, the
 * CLI) get the module's own location (rolldown would otherwise leave `{}.url`, and `new URL(x,
 * undefined)` throws at load).
 */
export const CJS_IMPORT_META = {
  'import.meta.dirname': '__dirname',
  'import.meta.filename': '__filename',
  'import.meta.url': 'require("node:url").pathToFileURL(__filename).href',
};

/**
 * supports-color, required deep in @anthropic-ai/mcpb's tree (through debug), reads the terminal at
 * load: the bundles get a stub (electron/shell/stubs/supports-color.cjs).
 */
export const BUNDLE_ALIAS = {
  'supports-color': fileURLToPath(new URL('./stubs/supports-color.cjs', import.meta.url)),
};
