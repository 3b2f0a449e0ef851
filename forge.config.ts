// Electron Forge: packaging and installers for the desktop app (electron/shell/). See docs/packaging.md.
// The Electron binary cannot be downloaded on build/CI machines here; `npm run package`/`make` go
// through electron/shell/forge-guard.ts, which explains that instead of failing with a stack trace.
import { MakerDeb } from '@electron-forge/maker-deb';
import { MakerDMG } from '@electron-forge/maker-dmg';
import { MakerSquirrel } from '@electron-forge/maker-squirrel';
import { MakerZIP } from '@electron-forge/maker-zip';
import { FusesPlugin } from '@electron-forge/plugin-fuses';
import { VitePlugin } from '@electron-forge/plugin-vite';
import type { ForgeConfig } from '@electron-forge/shared-types';
import { FuseV1Options, FuseVersion } from '@electron/fuses';
import { ignoredInPackage } from './build/forge/packaged-files.ts';

export const appIdentity = {
  appId: 'dev.switchboard.app',
  productName: 'Switchboard',
  protocol: 'switchboard',
} as const;

const protocols = [{ name: appIdentity.productName, schemes: [appIdentity.protocol] }];

/**
 * Linux: MCP bundles as a MIME type of their own. The desktop entry claims `mcpbMimeType`; the
 * shared-mime-info definition that maps `*.mcpb` (and the older `*.dxt`) to it ships in the app's
 * resources and the Debian package's postinst registers it (postrm takes it back).
 */
export const linuxMime = {
  mcpbMimeType: 'application/x-mcpb',
  definition: 'build/linux/switchboard-mcpb.xml',
  scripts: { postinst: 'build/linux/postinst', postrm: 'build/linux/postrm' },
} as const;

const config: ForgeConfig = {
  packagerConfig: {
    name: appIdentity.productName,
    executableName: 'switchboard',
    appBundleId: appIdentity.appId,
    appCategoryType: 'public.app-category.developer-tools',
    icon: 'build/icons/icon', // .icns on macOS, .ico on Windows
    // Native modules load from disk (the keychain's .node binary; `*.node` matches the file name
    // anywhere). The stdio relay is unpacked too: Claude Desktop runs it as the app binary with
    // ELECTRON_RUN_AS_NODE=1, and a plain file needs no asar support (electron/desktop/relay-command.ts).
    asar: { unpack: '*.node', unpackDir: '.vite/relay' },
    // The bundles in .vite/ plus the one runtime dependency that cannot be bundled (native).
    ignore: ignoredInPackage,
    extraResource: ['build/icons', ...(process.platform === 'linux' ? [linuxMime.definition] : [])],
    protocols,
    // Tray-only on macOS: no Dock icon unless the window is open (the shell shows it then). MCP
    // bundles (.mcpb) open with the app (open-file: electron/shell/main.ts).
    extendInfo: {
      LSUIElement: true,
      CFBundleDocumentTypes: [
        {
          CFBundleTypeName: 'MCP bundle',
          CFBundleTypeExtensions: ['mcpb', 'dxt'],
          CFBundleTypeRole: 'Viewer',
          LSHandlerRank: 'Alternate',
        },
      ],
    },
  },
  makers: [
    new MakerZIP({}, ['darwin']),
    new MakerDMG({ icon: 'build/icons/icon.icns' }),
    new MakerSquirrel({ name: 'switchboard', setupIcon: 'build/icons/icon.ico' }),
    new MakerDeb({
      options: {
        name: 'switchboard',
        productName: appIdentity.productName,
        icon: 'build/icons/icon.png',
        categories: ['Development'],
        // switchboard:// links, and MCP bundles as application/x-mcpb (linuxMime: its definition is
        // registered by the package's postinst). docs/packaging.md.
        mimeType: [`x-scheme-handler/${appIdentity.protocol}`, linuxMime.mcpbMimeType],
        scripts: { ...linuxMime.scripts },
      },
    }),
    // RPM: @electron-forge/maker-rpm has no Forge 8 release; 7.x does not install here (its
    // @electron/node-gyp dependency comes from codeload.github.com, unreachable). See docs/packaging.md.
  ],
  plugins: [
    new VitePlugin({
      build: [
        // .vite/build/main.cjs (package.json "main"): the main process with the core bundled in.
        { entry: 'electron/shell/main.ts', config: 'electron/shell/vite.main.config.ts', target: 'main' },
        // .vite/build/preload.cjs
        {
          entry: 'electron/shell/preload.ts',
          config: 'electron/shell/vite.preload.config.ts',
          target: 'preload',
        },
        // .vite/relay/main.mjs: the stdio relay Claude Desktop runs.
        { entry: 'electron/relay/main.mjs', config: 'electron/shell/vite.relay.config.ts', target: 'main' },
        // .vite/cli/main.cjs: the `switchboard` command the app installs (electron/desktop/cli-command.ts).
        { entry: 'electron/shell/cli-main.ts', config: 'electron/shell/vite.cli.config.ts', target: 'main' },
        // .vite/children/*.cjs: the core's child scripts (electron/core/child-script.ts).
        {
          entry: 'electron/core/child-script.ts',
          config: 'electron/shell/vite.children.config.ts',
          target: 'main',
        },
      ],
      // .vite/renderer/main_window (renderer/dist stays headless mode's build).
      renderer: [{ name: 'main_window', config: 'electron/shell/vite.renderer.config.ts' }],
    }),
    new FusesPlugin({
      version: FuseVersion.V1,
      // RunAsNode stays on: Claude Desktop's stdio relay runs as `Switchboard ELECTRON_RUN_AS_NODE=1`.
      [FuseV1Options.RunAsNode]: true,
      [FuseV1Options.EnableCookieEncryption]: true,
      [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
      [FuseV1Options.EnableNodeCliInspectArguments]: false,
      [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
      [FuseV1Options.OnlyLoadAppFromAsar]: true,
    }),
  ],
};

export default config;
