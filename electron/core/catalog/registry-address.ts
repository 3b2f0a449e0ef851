import { DEFAULT_REGISTRY_URL, type CatalogRegistry } from '../../../shared/catalog.ts';
import { displayText } from '../../../shared/display-text.ts';
import { UserError } from '../errors.ts';

/** The environment variable that overrides the setting (tests, managed machines). */
export const REGISTRY_ENV = 'SWITCHBOARD_REGISTRY_URL';

/**
 * Which registry the catalog asks: SWITCHBOARD_REGISTRY_URL, else the address saved in Settings
 * (state.json), else the official registry. Returned as written; checkRegistryUrl says whether it can
 * be used.
 */
export function registryAddress(env: NodeJS.ProcessEnv, configured: string | undefined): CatalogRegistry {
  const fromEnv = env[REGISTRY_ENV]?.trim();
  const source = fromEnv ? 'env' : configured ? 'setting' : 'default';
  const url = fromEnv || configured || DEFAULT_REGISTRY_URL;
  return { url, source, configured: configured ?? null, default: DEFAULT_REGISTRY_URL };
}

/**
 * A registry's base address, normalized (no trailing slash), or a UserError saying what is wrong with
 * it and where it came from. Sub-registries may live under a path (https://example.com/mcp-registry),
 * so a path is kept; a query, fragment or credentials are refused: the API's paths are appended to it.
 */
export function checkRegistryUrl(url: string, from: CatalogRegistry['source'] | 'input' = 'input'): string {
  const where =
    from === 'env'
      ? `${REGISTRY_ENV} in the environment`
      : from === 'setting'
        ? 'the registry address in Settings'
        : 'the registry address';
  const shown = displayText(url.length > 200 ? `${url.slice(0, 200)}…` : url);
  const hint =
    from === 'env'
      ? `set ${REGISTRY_ENV} to an address like ${DEFAULT_REGISTRY_URL}, or unset it`
      : `use an address like ${DEFAULT_REGISTRY_URL} (switchboard catalog registry URL, or Settings)`;
  const parsed = URL.parse(url.trim());
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
    throw new UserError(`${where} is not an http:// or https:// address: "${shown}"`, { hint });
  if (parsed.username || parsed.password)
    throw new UserError(`${where} must not carry a user name or password: "${shown}"`, { hint });
  if (parsed.search || parsed.hash)
    throw new UserError(`${where} must not have a query (?…) or fragment (#…): "${shown}"`, { hint });
  return parsed.href.replace(/\/+$/, '');
}
