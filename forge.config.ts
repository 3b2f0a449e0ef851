// Electron Forge packaging for the desktop shell (electron/shell/). The shell, its Vite build and the
// makers (dmg/zip, Squirrel, deb, rpm) with fuses arrive with the desktop-shell issue; until then
// this declares the app's identity so `electron/shell` and packaging have one place to read it from.
// The Electron binary cannot be downloaded on build/CI machines: see docs/development.md.
export const appIdentity = {
  appId: 'dev.switchboard.app',
  productName: 'Switchboard',
  protocol: 'switchboard',
} as const;

const config = {
  packagerConfig: {
    name: appIdentity.productName,
    appBundleId: appIdentity.appId,
    protocols: [{ name: appIdentity.productName, schemes: [appIdentity.protocol] }],
  },
  makers: [],
  plugins: [],
};

export default config;
