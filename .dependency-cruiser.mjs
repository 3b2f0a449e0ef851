// @ts-check
// Switchboard's import rules, checked by dependency-cruiser in `npm test` (test/run.sh):
//   npx depcruise electron shared renderer --ignore-known
// The layers below are the map in docs/development.md ("Layers"); a unit test
// (test/unit/architecture/layers.test.ts) keeps that map and this list the same, and checks that
// every file of electron/core/ sits in a layer. Known violations that other work removes are in
// .dependency-cruiser-known-violations.json (docs/development.md says which, and who removes them).

/**
 * The program's parts above shared/ (which has a rule of its own), bottom first. A part may import its own layer and the layers below it, never
 * one above. Paths are relative to the repository, a folder with a trailing slash.
 */
export const APP_LAYERS = [
  { name: 'core', paths: ['electron/core/'] },
  {
    name: 'relay, headless, desktop',
    paths: ['electron/relay/', 'electron/headless/', 'electron/desktop/'],
  },
  { name: 'cli, shell, launch', paths: ['electron/cli/', 'electron/shell/', 'electron/launch.mjs'] },
];

/** The core's parts, bottom first (same rule: never import a layer above). */
export const CORE_LAYERS = [
  {
    name: 'base',
    paths: [
      'clock.ts',
      'errors.ts',
      'home.ts',
      'home-root.mjs',
      'user-dirs.mjs',
      'compile-cache.mjs',
      'instance-file.ts',
      'fs/',
      'logs/',
      'activity/',
      'lists/',
      'desktop-apps/',
      'node-http.ts',
      'memory/',
      'cli-launcher.ts',
      'text-order.ts',
      'sealed-state.ts',
      'pid-exists.ts',
      'child-script.ts',
    ],
  },
  { name: 'tokens', paths: ['tokens/'] },
  { name: 'secrets', paths: ['secrets/'] },
  { name: 'trust', paths: ['trust/'] },
  { name: 'servers file', paths: ['config/'] },
  { name: 'oauth', paths: ['oauth/'] },
  { name: 'supervisor', paths: ['supervisor/'] },
  { name: 'sandbox', paths: ['sandbox/'] },
  { name: 'store, tools', paths: ['store/', 'tools/'] },
  { name: 'entries', paths: ['server-entry.ts'] },
  { name: 'launch, catalog', paths: ['launch-plan.ts', 'catalog/'] },
  { name: 'services', paths: ['services/', 'core-events.ts'] },
  { name: 'composition', paths: ['core.ts'] },
  { name: 'editors', paths: ['editors/'] },
  { name: 'projects', paths: ['projects/'] },
  { name: 'bridge', paths: ['bridge/'] },
];

/** Files that may take the whole `Core` (the composition roots); everyone else gets a narrow interface. */
export const COMPOSITION_ROOTS = ['electron/headless/serve.ts'];

const escape = (/** @type {string} */ s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** One regular expression for a list of repository paths (folders end with `/`, files match exactly). */
const pathsRe = (/** @type {string[]} */ paths) =>
  `^(${paths.map((p) => (p.endsWith('/') ? escape(p) : `${escape(p)}$`)).join('|')})`;
const inCore = (/** @type {string[]} */ paths) => paths.map((p) => `electron/core/${p}`);

/** @param {{name: string, paths: string[]}[]} layers @param {string} prefix */
function layerRules(layers, prefix) {
  return layers.slice(0, -1).map((layer, i) => ({
    name: `${prefix}${layer.name.replaceAll(/[^a-z]+/g, '-')}`,
    comment: `${prefix}layer "${layer.name}" imports a layer above it (${layers
      .slice(i + 1)
      .map((l) => l.name)
      .join(', ')}); see docs/development.md, Layers`,
    severity: /** @type {const} */ ('error'),
    from: { path: pathsRe(layer.paths) },
    to: { path: pathsRe(layers.slice(i + 1).flatMap((l) => l.paths)) },
  }));
}

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import cycle: modules that need each other cannot be read, tested or moved alone',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'a relative import of a file that is not there (moved or renamed without updating this import)',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, path: '^[.]' },
    },
    {
      name: 'core-not-electron',
      comment: 'the core is plain Node: it never imports electron (the shell wires it)',
      severity: 'error',
      from: { path: '^electron/core/' },
      to: { path: '^(node_modules/electron/|electron$)' },
    },
    {
      name: 'shared-only-shared',
      comment: 'shared/ is contracts for main and renderer: it imports nothing of ours outside shared/',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(electron|renderer|test|bench|build)/' },
    },
    {
      name: 'renderer-through-shared',
      comment: 'the UI reaches the core only through shared/ contracts (UiApi), never electron/ itself',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^(electron|test|bench|build)/' },
    },
    {
      name: 'core-only-in-roots',
      comment:
        'only the composition roots take the whole Core; other parts depend on a small interface of what they use',
      severity: 'error',
      from: { pathNot: pathsRe(COMPOSITION_ROOTS) },
      to: { path: '^electron/core/core\\.ts$' },
    },
    {
      name: 'core-file-without-layer',
      comment: 'every file of electron/core/ sits in a layer of CORE_LAYERS (.dependency-cruiser.mjs)',
      severity: 'error',
      from: { path: '^electron/core/', pathNot: pathsRe(inCore(CORE_LAYERS.flatMap((l) => l.paths))) },
      to: {},
    },
    {
      // The rule above sees only files that import something; this one the files they import.
      name: 'core-import-without-layer',
      comment: 'a file of electron/core/ that others import sits in a layer of CORE_LAYERS too',
      severity: 'error',
      from: { path: '^electron/core/' },
      to: { path: '^electron/core/', pathNot: pathsRe(inCore(CORE_LAYERS.flatMap((l) => l.paths))) },
    },
    ...layerRules(APP_LAYERS, 'app-'),
    ...layerRules(
      CORE_LAYERS.map((l) => ({ name: l.name, paths: inCore(l.paths) })),
      'core-',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    // Type-only imports count: they couple modules as much as value imports do.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    cache: false,
  },
};
