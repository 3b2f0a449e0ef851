// Builds the desktop app's bundles exactly as `electron-forge package` does, without Electron, and
// checks that what was built can run: Forge's Vite plugin builds each target in a subprocess
// (@electron-forge/plugin-vite/dist/subprocess-worker.js, configured through environment variables);
// this runs that same worker with the plugin config from forge.config.ts.
//
//   node build/verify-bundles.ts          build into .vite/ and check (exit code 1 on a problem)
//   node build/verify-bundles.ts --check  only check an existing .vite/
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import VitePlugin from '@electron-forge/plugin-vite';
import forgeConfig from '../forge.config.ts';
import { CSP_NONCE_PLACEHOLDER } from '../electron/core/bridge/ui-static.ts';
import { CHILD_SCRIPTS, type ChildScriptName } from '../electron/core/child-script.ts';
import { ignoredInPackage } from './forge/packaged-files.ts';

export const PROJECT_DIR = fileURLToPath(new URL('..', import.meta.url));

/** Where Forge's build puts each bundle (package.json "main" is the first). */
export const BUNDLES = {
  main: '.vite/build/main.cjs',
  preload: '.vite/build/preload.cjs',
  relay: '.vite/relay/main.mjs',
  cli: '.vite/cli/main.cjs',
  renderer: '.vite/renderer/main_window/index.html',
} as const;

/** Where each of the core's child scripts is bundled (electron/shell/vite.children.config.ts). */
export const CHILD_BUNDLES = Object.fromEntries(
  Object.keys(CHILD_SCRIPTS).map((name) => [name, `.vite/children/${name}.cjs`]),
) as Record<ChildScriptName, string>;

function vitePluginConfig() {
  const plugin = forgeConfig.plugins?.find((p) => p instanceof VitePlugin);
  if (!(plugin instanceof VitePlugin)) throw new Error('forge.config.ts has no VitePlugin');
  // What Forge hands its workers (VitePlugin.serializableConfig).
  return { build: plugin.config.build, renderer: plugin.config.renderer };
}

function runWorker(kind: 'build' | 'renderer', index: number, projectDir: string): Promise<void> {
  const worker = join(
    dirname(fileURLToPath(import.meta.resolve('@electron-forge/plugin-vite'))),
    'subprocess-worker.js',
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker], {
      cwd: projectDir,
      env: {
        ...process.env,
        FORGE_VITE_PROJECT_DIR: projectDir,
        FORGE_VITE_KIND: kind,
        FORGE_VITE_INDEX: String(index),
        FORGE_VITE_CONFIG: JSON.stringify(vitePluginConfig()),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`Vite build (${kind} #${index}) failed:\n${output}`)),
    );
  });
}

/** Forge's prePackage: a clean .vite, then every build target and every renderer, production mode. */
export async function buildLikeForge(projectDir = PROJECT_DIR): Promise<void> {
  rmSync(join(projectDir, '.vite'), { recursive: true, force: true });
  const config = vitePluginConfig();
  // One at a time (Forge runs them concurrently; these machines have two cores).
  for (const [i] of config.build.entries()) await runWorker('build', i, projectDir);
  for (const [i] of config.renderer.entries()) await runWorker('renderer', i, projectDir);
}

const BUILTIN = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
/**
 * Script sources and folders a bundler inlined as data: URLs (`new URL('./x.ts', import.meta.url)`;
 * `new URL('../..', import.meta.url)` became `data:application/node`, and `fileURLToPath` of it threw).
 */
const INLINED_SCRIPT =
  /data:(?:video\/mp2t|text\/javascript|application\/(?:x-)?(?:typescript|javascript|node))/;
/** A quoted path to a TypeScript source: the bundle would look for a file that is not packaged. */
const SOURCE_PATH = /["'`][^"'`\s]*[\\/][^"'`\s]*\.[mc]?ts["'`]/;

/** `require("x")` calls; not the text of one inside a string (ajv keeps such code as strings). */
const REQUIRE = /(?<![`'"])\brequire\((["'`])([^"'`]+)\1\)/g;

function specifiers(code: string, pattern: RegExp): string[] {
  return [...code.matchAll(pattern)].map((m) => m[2] ?? '');
}

/** What is wrong with the built bundles, in words (empty: nothing). */
export function bundleProblems(projectDir = PROJECT_DIR): string[] {
  const problems: string[] = [];
  const read = (file: string): string | undefined => {
    const path = join(projectDir, file);
    if (existsSync(path)) return readFileSync(path, 'utf8');
    problems.push(`${file} was not built`);
    return undefined;
  };

  // The main process, the CLI and the children, with their chunks: CommonJS in app.asar, requiring
  // only what is packaged.
  const entries = [BUNDLES.main, BUNDLES.cli, ...Object.values(CHILD_BUNDLES)];
  const chunks = ['.vite/cli', '.vite/children'].flatMap((dir) =>
    existsSync(join(projectDir, dir))
      ? readdirSync(join(projectDir, dir))
          .filter((f) => f.endsWith('.cjs'))
          .map((f) => posix.join(dir, f))
          .filter((f) => !entries.includes(f))
      : [],
  );
  for (const file of [...entries, ...chunks]) {
    const code = read(file);
    if (code === undefined) continue;
    for (const id of specifiers(code, REQUIRE)) {
      const packaged =
        !ignoredInPackage(`/node_modules/${id}`) && !ignoredInPackage(`/node_modules/${id}/package.json`);
      const local = id.startsWith('./');
      // The CLI's serve builds a missing UI only in a source checkout, never in the app.
      const sourceOnly = file.startsWith('.vite/cli/') && id === 'vite';
      if (!BUILTIN.has(id) && id !== 'electron' && !packaged && !local && !sourceOnly)
        problems.push(`${file} requires "${id}", which is neither bundled nor packaged`);
    }
    if (INLINED_SCRIPT.test(code)) problems.push(`${file} inlines a script as a data: URL`);
    // (Not asked of the CLI's chunks: its ui-build chunk lists the UI's sources, for a source checkout.)
    const source = entries.includes(file) ? SOURCE_PATH.exec(code) : null;
    if (source) problems.push(`${file} refers to a source file: ${source[0]}`);
  }

  const preload = read(BUNDLES.preload);
  if (preload !== undefined) {
    for (const id of specifiers(preload, REQUIRE))
      if (id !== 'electron')
        problems.push(`${BUNDLES.preload} requires "${id}" (a sandboxed preload may not)`);
  }

  const relay = read(BUNDLES.relay);
  if (relay !== undefined) {
    const imports = [
      ...specifiers(relay, /\bfrom\s*(["'`])([^"'`]+)\1/g),
      ...specifiers(relay, /\bimport\s*\(?\s*(["'`])([^"'`]+)\1/g),
    ];
    for (const id of imports)
      if (!BUILTIN.has(id)) problems.push(`${BUNDLES.relay} imports "${id}" (it must stand alone)`);
    if (SOURCE_PATH.test(relay)) problems.push(`${BUNDLES.relay} refers to a source file`);
  }

  const html = read(BUNDLES.renderer);
  if (html !== undefined && !html.includes(CSP_NONCE_PLACEHOLDER))
    problems.push(`${BUNDLES.renderer} has no CSP nonce placeholder (renderer/vite.config.ts html.cspNonce)`);
  return problems;
}

/**
 * What goes wrong when the built CLI and child scripts run under Node (as the app binary runs them
 * with ELECTRON_RUN_AS_NODE=1), from `root`: the project after a build, or an extracted app.asar.
 */
export async function bundleRunProblems(root = PROJECT_DIR): Promise<string[]> {
  const problems: string[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'sb-verify-bundles-'));
  try {
    // The npm batch child answers a lock for an npm it does not know with `fallback`.
    const request = {
      id: 1,
      dir: scratch,
      program: { npm: join(scratch, 'no-npm'), npmArgs: [], staging: scratch, env: {} },
    };
    const batch = await runNode(
      root,
      [CHILD_BUNDLES['npm-batch-child']],
      `${JSON.stringify(request)}\n`,
      {},
      30_000,
    );
    if (!batch.output.includes('{"id":1,"result":"fallback"}'))
      problems.push(
        `${CHILD_BUNDLES['npm-batch-child']} did not answer "fallback" to a lock for an unknown npm:\n${batch.output}`,
      );
    // serve says at start that there is no keychain (Linux, a D-Bus address where nothing listens):
    // its check runs the keychain child, which must be that child and not the bundle that started it.
    if (process.platform === 'linux') {
      const env = {
        HOME: join(scratch, 'home'),
        SWITCHBOARD_HOME: join(scratch, 'switchboard'),
        SWITCHBOARD_SKIP_UI_BUILD: '1',
        DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(scratch, 'no-bus')}`,
      };
      const serve = await runNode(
        root,
        [BUNDLES.cli, 'serve', '--port', '0'],
        undefined,
        env,
        30_000,
        'No keychain:',
      );
      if (!serve.output.includes('No keychain:'))
        problems.push(`${BUNDLES.cli} serve did not say that there is no keychain:\n${serve.output}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return problems;
}

/** Runs `node ARGS` in `root` until it exits (or says `until`, then SIGTERM), with the app's Node-mode setting. */
function runNode(
  root: string,
  args: string[],
  input: string | undefined,
  env: Record<string, string>,
  timeoutMs: number,
  until?: string,
): Promise<{ output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, ...env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (until && output.includes(until)) child.kill('SIGTERM');
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ output });
    });
    child.stdin.end(input);
  });
}

if (import.meta.main) {
  if (!process.argv.includes('--check')) await buildLikeForge();
  const problems = [...bundleProblems(), ...(await bundleRunProblems())];
  for (const p of problems) console.error(`verify-bundles: ${p}`);
  if (problems.length === 0)
    console.log(
      `verify-bundles: ${[...Object.values(BUNDLES), ...Object.values(CHILD_BUNDLES)].join(', ')} OK`,
    );
  process.exitCode = problems.length ? 1 : 0;
}
