import { join } from 'node:path';

/**
 * Switchboard's own scripts that run as child processes of Node, by name, with their source under
 * electron/core/ (without `.ts`: the bundles keep this table, and name no source file). The desktop app's bundles carry each as a bundle of its own, `.vite/children/NAME.cjs`
 * (electron/shell/vite.children.config.ts builds one per entry here).
 */
export const CHILD_SCRIPTS = {
  /** is there a keychain at all (secrets/keychain-check.ts) */
  'keychain-check': 'secrets/keychain-check-main',
  /** npm lockfiles for serve, a batch per child (store/npm-batch-child.ts) */
  'npm-batch-child': 'store/npm-batch-child-main',
} as const;
export type ChildScriptName = keyof typeof CHILD_SCRIPTS;

/**
 * The file to run for a child script. From source this module is TypeScript and the script is its
 * source; inside a bundle (.vite/build/main.cjs, .vite/cli/*.cjs: one folder below .vite) it is the
 * child's own bundle. Never `import.meta.url` of the caller: in a bundle that is the bundle itself.
 */
export function childScript(name: ChildScriptName): string {
  return import.meta.filename.endsWith('.ts')
    ? join(import.meta.dirname, `${CHILD_SCRIPTS[name]}.ts`)
    : join(import.meta.dirname, '..', 'children', `${name}.cjs`);
}

/**
 * The environment for a child that runs this process's binary as Node: in the desktop app that binary
 * is Electron's, which is Node only with ELECTRON_RUN_AS_NODE=1 (the RunAsNode fuse stays on for it,
 * as for the relay); otherwise it would start a second app.
 */
export function nodeChildEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return process.versions.electron === undefined ? env : { ...env, ELECTRON_RUN_AS_NODE: '1' };
}
