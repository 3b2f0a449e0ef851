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
