// Packages the desktop app the way `electron-forge package` does, on a machine where Electron cannot
// be downloaded: @electron/packager with forge.config.ts's packagerConfig (the ignore filter, asar
// with its unpack rules, extra resources) and the Vite plugin's packageAfterCopy check, but given a
// stand-in Electron zip (electronZipDir) holding a dummy executable. Everything the packager does to
// the app itself is real; only the Electron binary is not (and the fuses, which need the real binary,
// are not flipped). Needs the bundles first (build/verify-bundles.ts).
//
//   node build/verify-package.ts     build the bundles, package into out/verify, print the layout
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { packager } from '@electron/packager';
import VitePlugin from '@electron-forge/plugin-vite';
import type { ResolvedForgeConfig } from '@electron-forge/shared-types';
import forgeConfig from '../forge.config.ts';
import { buildLikeForge, PROJECT_DIR } from './verify-bundles.ts';

/** A zip archive, stored (no compression): enough for the packager's extract-zip. */
function zip(entries: { name: string; data: string; mode: number }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const data = Buffer.from(entry.data);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x031e, 4); // made by: Unix, so the mode below counts
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((0o100000 | entry.mode) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function electronVersion(): string {
  const pkg: unknown = JSON.parse(
    readFileSync(join(PROJECT_DIR, 'node_modules', 'electron', 'package.json'), 'utf8'),
  );
  const version = typeof pkg === 'object' && pkg && 'version' in pkg ? pkg.version : undefined;
  if (typeof version !== 'string') throw new Error('node_modules/electron/package.json has no version');
  return version;
}

/**
 * Packages for Linux x64 into `out` and returns the packaged app's folder
 * (<out>/Switchboard-linux-x64, with resources/app.asar and resources/app.asar.unpacked).
 */
export async function packageWithStandInElectron(out: string): Promise<string> {
  const version = electronVersion();
  const zipDir = mkdtempSync(join(tmpdir(), 'sb-electron-zip-'));
  try {
    writeFileSync(
      join(zipDir, `electron-v${version}-linux-x64.zip`),
      zip([
        {
          name: 'electron',
          data: '#!/bin/sh\necho "stand-in Electron: cannot run" >&2\nexit 1\n',
          mode: 0o755,
        },
        { name: 'version', data: version, mode: 0o644 },
        { name: 'LICENSE', data: 'stand-in\n', mode: 0o644 },
        { name: 'resources/default_app.asar', data: 'stand-in\n', mode: 0o644 },
      ]),
    );
    const vite = forgeConfig.plugins?.find((p) => p instanceof VitePlugin);
    if (!(vite instanceof VitePlugin)) throw new Error('forge.config.ts has no VitePlugin');
    vite.setDirectories(PROJECT_DIR);
    const [appDir] = await packager({
      // As @electron-forge/core's package step sets them, then the project's packagerConfig.
      asar: false,
      overwrite: true,
      quiet: true,
      ...forgeConfig.packagerConfig,
      dir: PROJECT_DIR,
      platform: 'linux',
      arch: 'x64',
      out,
      electronVersion: version,
      electronZipDir: zipDir,
      // The Vite plugin's check that package.json "main" is a built bundle that exists in the copy
      // (the hook does not read its config argument).
      afterCopy: [({ buildPath }) => vite.packageAfterCopy(forgeConfig as ResolvedForgeConfig, buildPath)],
    });
    if (!appDir) throw new Error('the packager produced nothing');
    return appDir;
  } finally {
    rmSync(zipDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await buildLikeForge();
  const out = join(PROJECT_DIR, 'out', 'verify');
  mkdirSync(out, { recursive: true });
  console.log(`verify-package: packaged into ${await packageWithStandInElectron(out)}`);
}
