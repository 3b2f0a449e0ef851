import { SERVER_NAME_PATTERN } from '../../../shared/schema/servers.ts';
import { addServers } from '../config/add-servers.ts';
import { UserError } from '../errors.ts';
import type { Keychain } from '../secrets/keychain.ts';
import { refusedForeignValue } from '../secrets/foreign-values.ts';
import { BORROWED_HINT, bundleServerConfig, type BundleField, type InstalledBundle } from './mcpb-bundle.ts';

/** A server name from a bundle's name: its letters, digits, "-" and "_" (at most 48). */
export function bundleServerName(bundleName: string): string {
  const name = bundleName
    .replace(/[^a-zA-Z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return SERVER_NAME_PATTERN.test(name) ? name : 'bundle';
}

/**
 * Adds an unpacked bundle's server to servers.json, pending approval like any other: its manifest's
 * command line with `values` for its user_config. A sensitive value goes to the keychain as
 * `<server>-<key>` and the entry gets its `${secret:…}` reference; none is ever written in clear.
 */
export async function addBundleServer(options: {
  bundle: InstalledBundle;
  name: string;
  values: Record<string, string>;
  serversFile: string;
  keychain: Keychain;
}): Promise<{ secrets: string[] }> {
  const { bundle, name, values } = options;
  const fields: Record<string, BundleField> = bundle.record.userConfig;
  for (const key of Object.keys(values))
    if (!fields[key]) throw new UserError(`the bundle ${bundle.record.name} has no setting "${key}"`);
  // Judged once filled in too, before anything is stored: "$" and "{user_config.x}" with x's default
  // "{secret:y}" make a reference of parts. The references Switchboard writes for the sensitive
  // values are its own (a plain stand-in here), so one found was made of the bundle's parts or typed in.
  const own = Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, fields[k]?.sensitive && v !== '' ? '-' : v]),
  );
  const refused = refusedForeignValue(await bundleServerConfig(bundle, own));
  if (refused)
    throw new UserError(`the bundle ${bundle.record.name}, filled in: ${refused}`, { hint: BORROWED_HINT });
  const given: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    const field = fields[key];
    if (!field) continue;
    if (field.sensitive && value !== '') {
      const secret = `${name}-${key}`.toLowerCase().replace(/[^a-z0-9_-]/g, '-');
      await options.keychain.set(secret, value);
      secrets.push(secret);
      given[key] = `\${secret:${secret}}`;
    } else given[key] = value;
  }
  const config = await bundleServerConfig(bundle, given);
  await addServers({
    serversFile: options.serversFile,
    keychain: options.keychain,
    servers: [{ name, config: { command: config.command, args: config.args, env: config.env } }],
  });
  return { secrets };
}
