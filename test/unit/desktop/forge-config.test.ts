import { MakerDeb } from '@electron-forge/maker-deb';
import { FusesPlugin } from '@electron-forge/plugin-fuses';
import { FuseV1Options } from '@electron/fuses';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import forgeConfig, { linuxMime } from '../../../forge.config.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('forge.config.ts fuses', () => {
  const fuses = forgeConfig.plugins?.find((p) => p instanceof FusesPlugin);

  it('keep RunAsNode on: Claude Desktop runs the relay as the app binary with ELECTRON_RUN_AS_NODE=1', () => {
    expect(fuses).toBeInstanceOf(FusesPlugin);
    if (!(fuses instanceof FusesPlugin)) return;
    expect(fuses.fusesConfig[FuseV1Options.RunAsNode]).toBe(true);
  });

  it('keep the rest locked down', () => {
    if (!(fuses instanceof FusesPlugin)) throw new Error('no FusesPlugin');
    expect(fuses.fusesConfig[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(false);
    expect(fuses.fusesConfig[FuseV1Options.EnableNodeCliInspectArguments]).toBe(false);
    expect(fuses.fusesConfig[FuseV1Options.OnlyLoadAppFromAsar]).toBe(true);
    expect(fuses.fusesConfig[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(true);
  });
});

describe('forge.config.ts: .mcpb files on Linux', () => {
  let options: NonNullable<MakerDeb['config']['options']> = {};
  beforeAll(async () => {
    const deb = forgeConfig.makers?.find((m) => m instanceof MakerDeb);
    if (!(deb instanceof MakerDeb)) throw new Error('no MakerDeb in forge.config.ts');
    await deb.prepareConfig('x64');
    options = deb.config.options ?? {};
  });

  it('the desktop entry claims the type that the shipped definition gives *.mcpb, and ships it', () => {
    expect(options.mimeType).toContain(linuxMime.mcpbMimeType);
    const xml = readFileSync(join(ROOT, linuxMime.definition), 'utf8');
    expect(xml).toContain(`<mime-type type="${linuxMime.mcpbMimeType}">`);
    expect(xml).toContain('<glob pattern="*.mcpb"/>');
    expect(forgeConfig.packagerConfig?.extraResource).toContain(linuxMime.definition);
    expect(options.scripts).toEqual(linuxMime.scripts);
    // postinst copies it from where the package installs the app's resources (/usr/lib/<name>).
    const postinst = readFileSync(join(ROOT, linuxMime.scripts.postinst), 'utf8');
    expect(postinst).toContain(`/usr/lib/${options.name}/resources/${basename(linuxMime.definition)}`);
  });

  it('postinst registers it with the real update-mime-database, postrm takes it back', () => {
    // Into a throwaway root (dpkg's DPKG_ROOT), never this machine's /usr/share/mime.
    const root = mkdtempSync(join(tmpdir(), 'sb-deb-root-'));
    try {
      const resources = join(root, 'usr/lib', options.name ?? '', 'resources');
      mkdirSync(resources, { recursive: true });
      copyFileSync(join(ROOT, linuxMime.definition), join(resources, basename(linuxMime.definition)));
      const run = (script: string, arg: string) =>
        execFileSync('sh', [join(ROOT, script), arg], {
          env: { ...process.env, DPKG_ROOT: root },
          stdio: 'pipe',
        });
      for (const script of Object.values(linuxMime.scripts))
        expect(statSync(join(ROOT, script)).mode & 0o111, `${script} is executable`).not.toBe(0);

      run(linuxMime.scripts.postinst, 'configure');
      const globs = readFileSync(join(root, 'usr/share/mime/globs2'), 'utf8');
      expect(globs).toMatch(/^\d+:application\/x-mcpb:\*\.mcpb$/m);
      expect(globs).toMatch(/^\d+:application\/x-mcpb:\*\.dxt$/m);
      expect(readFileSync(join(root, 'usr/share/mime/subclasses'), 'utf8')).toContain(
        'application/x-mcpb application/zip',
      );

      run(linuxMime.scripts.postrm, 'remove');
      expect(existsSync(join(root, 'usr/share/mime/packages/switchboard-mcpb.xml'))).toBe(false);
      expect(readFileSync(join(root, 'usr/share/mime/globs2'), 'utf8')).not.toContain('x-mcpb');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
