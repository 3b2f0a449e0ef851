// Builds the desktop app's bundles exactly as `electron-forge package` does, without Electron, and
// checks that what was built can run: Forge's Vite plugin builds each target in a subprocess
// (@electron-forge/plugin-vite/dist/subprocess-worker.js, configured through environment variables);
// this runs that same worker with the plugin config from forge.config.ts.
//
//   node build/verify-bundles.ts          build into .vite/ and check (exit code 1 on a problem)
//   node build/verify-bundles.ts --check  only check an existing .vite/
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import VitePlugin from '@electron-forge/plugin-vite';
import forgeConfig from '../forge.config.ts';
import { CSP_NONCE_PLACEHOLDER } from '../electron/core/bridge/ui-static.ts';
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
/** Script sources a bundler inlined as data: URLs (`new URL('./x.ts', import.meta.url)`). */
const INLINED_SCRIPT = /data:(?:video\/mp2t|text\/javascript|application\/(?:x-)?(?:typescript|javascript))/;
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

  // The main process and the CLI: CommonJS in app.asar, requiring only what is packaged.
  for (const file of [BUNDLES.main, BUNDLES.cli]) {
    const code = read(file);
    if (code === undefined) continue;
    for (const id of specifiers(code, REQUIRE)) {
      const packaged =
        !ignoredInPackage(`/node_modules/${id}`) && !ignoredInPackage(`/node_modules/${id}/package.json`);
      const local = id.startsWith('./');
      // The CLI's serve builds a missing UI only in a source checkout, never in the app.
      const sourceOnly = file === BUNDLES.cli && id === 'vite';
      if (!BUILTIN.has(id) && id !== 'electron' && !packaged && !local && !sourceOnly)
        problems.push(`${file} requires "${id}", which is neither bundled nor packaged`);
    }
    if (INLINED_SCRIPT.test(code)) problems.push(`${file} inlines a script as a data: URL`);
    const source = SOURCE_PATH.exec(code);
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

if (import.meta.main) {
  if (!process.argv.includes('--check')) await buildLikeForge();
  const problems = bundleProblems();
  for (const p of problems) console.error(`verify-bundles: ${p}`);
  if (problems.length === 0) console.log(`verify-bundles: ${Object.values(BUNDLES).join(', ')} OK`);
  process.exitCode = problems.length ? 1 : 0;
}
