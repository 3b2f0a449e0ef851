import { describe, expect, it } from 'vitest';
import { ignoredInPackage } from '../../../build/forge/packaged-files.ts';

describe('what the packaged app contains', () => {
  it.each([
    '',
    '/package.json',
    '/.vite',
    '/.vite/build/main.cjs',
    '/.vite/relay/main.mjs',
    '/.vite/renderer/main_window/index.html',
    '/node_modules',
    '/node_modules/@napi-rs',
    '/node_modules/@napi-rs/keyring',
    '/node_modules/@napi-rs/keyring/index.js',
    '/node_modules/@napi-rs/keyring-darwin-arm64/keyring.darwin-arm64.node',
    '/node_modules/@napi-rs/keyring-linux-x64-gnu/package.json',
    '/node_modules/@napi-rs/keyring-win32-x64-msvc',
  ])('keeps %s', (path) => {
    expect(ignoredInPackage(path)).toBe(false);
  });

  it.each([
    '/electron/shell/main.ts',
    '/src',
    '/renderer/dist/index.html',
    '/node_modules/zod/index.js',
    '/node_modules/electron/dist/electron',
    '/node_modules/@napi-rs/other/index.js',
    '/node_modules/@napi-rs/keyringx/index.js',
    '/package-lock.json',
    '/.vitex/build/main.cjs',
    '/.git/config',
    '/forge.config.ts',
  ])('leaves out %s', (path) => {
    expect(ignoredInPackage(path)).toBe(true);
  });
});
