/**
 * What goes into the packaged app (Forge's `packagerConfig.ignore`). The Vite plugin's own filter keeps
 * only /.vite, which would leave out the one runtime dependency the main bundle cannot contain:
 * @napi-rs/keyring, a native module (plus the platform package holding its .node binary, e.g.
 * @napi-rs/keyring-darwin-arm64). Everything else the app runs is bundled into .vite/.
 *
 * `path` is as @electron/packager passes it: relative to the project, starting with "/", forward
 * slashes on every OS. Returns true for paths to leave out. Folders on the way to a kept file must be
 * kept, or the packager never looks inside them.
 */
export function ignoredInPackage(path: string): boolean {
  if (path === '' || path === '/package.json') return false;
  if (path === '/.vite' || path.startsWith('/.vite/')) return false;
  if (path === '/node_modules' || path === '/node_modules/@napi-rs') return false;
  return !KEPT_MODULE.test(path);
}

/** @napi-rs/keyring and @napi-rs/keyring-<platform>, and anything inside them. */
const KEPT_MODULE = /^\/node_modules\/@napi-rs\/keyring(-[a-z0-9-]+)?(\/|$)/;
