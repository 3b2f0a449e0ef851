import { displayText } from '../../../shared/display-text.ts';

/**
 * What a registry package becomes on the command line: the runtime that fetches and runs it and the
 * one word that names it (`pkg@1.2.3`, `pkg==1.2.3`, `image:tag`). The identifier and version come
 * from the network, so each must be exactly a package name or version of its kind: anything else
 * (a leading `-` that the runtime would read as a flag, a URL, a path, spaces) is refused with why.
 */

export type PackageKind = 'npm' | 'pypi' | 'oci';

export interface PackageSpec {
  /** npx, uvx or docker */
  runtime: string;
  /** the word naming the package, pinned where a version was given */
  word: string;
  /** false when no fixed version was given: each start may fetch a newer release */
  pinned: boolean;
}

export type SpecResult = { ok: true; spec: PackageSpec } | { ok: false; problem: string };

export const RUNTIMES: Record<PackageKind, string> = { npm: 'npx', pypi: 'uvx', oci: 'docker' };

/** Where each runtime comes from, for "X is not installed". */
export const RUNTIME_SOURCES: Record<string, string> = {
  npx: 'it comes with Node.js: https://nodejs.org/',
  uvx: 'it comes with uv: https://docs.astral.sh/uv/getting-started/installation/',
  docker: 'Docker Desktop or Docker Engine: https://docs.docker.com/get-docker/',
};

/** The package registries each kind is fetched from; another one named by the entry is refused. */
const DEFAULT_BASES: Record<PackageKind, readonly string[]> = {
  npm: ['https://registry.npmjs.org'],
  pypi: ['https://pypi.org', 'https://pypi.org/simple'],
  oci: [],
};

// npm: optional @scope/, then a name; no leading "-", "." or "_" (npx would take "-…" for a flag).
const NPM_NAME = /^(?:@[a-z0-9~][a-z0-9._~-]*\/)?[a-z0-9~][a-z0-9._~-]*$/i;
// semver, exactly (npm ranges and tags other than "latest" are not fixed versions)
const SEMVER = /^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
// PEP 508 project names
const PYPI_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
// PEP 440-ish: starts with a digit (or v), no operators, no spaces
const PEP440 = /^v?\d[0-9A-Za-z.!+_-]*$/;
// OCI references: [host[:port]/]path[:tag][@digest], lowercase path components
const OCI_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::\d{1,5})?$/;
const OCI_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const OCI_TAG = /^[\w][\w.-]{0,127}$/;
const OCI_DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-fA-F0-9]{32,}$/;

const MAX_IDENTIFIER = 255;

export function packageSpec(
  kind: PackageKind,
  identifier: string,
  version: string | undefined,
  registryBaseUrl: string | undefined,
): SpecResult {
  const shown = displayText(identifier.slice(0, 120));
  if (identifier.length > MAX_IDENTIFIER)
    return refuse(`its package name is longer than ${MAX_IDENTIFIER} characters`);
  const base = registryBaseUrl?.replace(/\/+$/, '');
  if (base && kind !== 'oci' && !DEFAULT_BASES[kind].includes(base)) {
    return refuse(
      `it comes from ${displayText(base.slice(0, 120))}, not the public ${kind === 'npm' ? 'npm registry' : 'Python Package Index'}: ` +
        `Switchboard installs ${kind === 'npm' ? 'npm' : 'PyPI'} packages from the one your ${kind === 'npm' ? 'npm' : 'uv'} configuration names`,
    );
  }
  const unpinned = version === undefined || version === '' || version === 'latest';
  switch (kind) {
    case 'npm': {
      if (!NPM_NAME.test(identifier)) return refuse(`"${shown}" is not an npm package name`);
      if (unpinned) return ok('npx', identifier, false);
      if (!SEMVER.test(version))
        return refuse(`"${displayText(version.slice(0, 60))}" is not a fixed npm version`);
      return ok('npx', `${identifier}@${version}`, true);
    }
    case 'pypi': {
      if (!PYPI_NAME.test(identifier)) return refuse(`"${shown}" is not a PyPI package name`);
      if (unpinned) return ok('uvx', identifier, false);
      if (!PEP440.test(version))
        return refuse(`"${displayText(version.slice(0, 60))}" is not a fixed Python package version`);
      return ok('uvx', `${identifier}==${version}`, true);
    }
    case 'oci':
      return ociSpec(identifier, unpinned ? undefined : version, base);
  }
}

/**
 * An image reference: the identifier's own tag or digest wins (the current server.json form,
 * `docker.io/user/app:1.0.0`); the older form gives the tag as `version` and the registry host as
 * `registryBaseUrl`. Without either it is unpinned (`:latest` at each start).
 */
function ociSpec(identifier: string, version: string | undefined, base: string | undefined): SpecResult {
  const shown = displayText(identifier.slice(0, 120));
  const at = identifier.indexOf('@');
  const name = at >= 0 ? identifier.slice(0, at) : identifier;
  const digest = at >= 0 ? identifier.slice(at + 1) : undefined;
  if (digest !== undefined && !OCI_DIGEST.test(digest))
    return refuse(`"${shown}" has a digest that is not one`);
  const parts = name.split('/');
  const last = parts.pop() ?? '';
  const colon = last.indexOf(':');
  const tag = colon >= 0 ? last.slice(colon + 1) : undefined;
  const repo = colon >= 0 ? last.slice(0, colon) : last;
  // A first component with a dot or port (or "localhost") is the registry host.
  const host = parts.length > 0 && /[.:]|^localhost$/.test(parts[0] ?? '') ? parts.shift() : undefined;
  if (host !== undefined && !OCI_HOST.test(host)) return refuse(`"${shown}" is not an image reference`);
  if (![...parts, repo].every((c) => OCI_COMPONENT.test(c)))
    return refuse(`"${shown}" is not an image reference`);
  if (tag !== undefined && !OCI_TAG.test(tag)) return refuse(`"${shown}" has a tag that is not one`);
  let reference = name;
  if (host === undefined && base) {
    const baseHost = URL.parse(base)?.host;
    if (!baseHost || !OCI_HOST.test(baseHost))
      return refuse(`its image registry "${displayText(base.slice(0, 80))}" is not a host`);
    if (baseHost !== 'docker.io' && baseHost !== 'index.docker.io') reference = `${baseHost}/${name}`;
  }
  if (digest !== undefined) return ok('docker', `${reference}@${digest}`, true);
  if (tag !== undefined) return ok('docker', reference, tag !== 'latest');
  if (version === undefined) return ok('docker', reference, false);
  if (!OCI_TAG.test(version)) return refuse(`"${displayText(version.slice(0, 60))}" is not an image tag`);
  return ok('docker', `${reference}:${version}`, true);
}

function ok(runtime: string, word: string, pinned: boolean): SpecResult {
  return { ok: true, spec: { runtime, word, pinned } };
}

function refuse(problem: string): SpecResult {
  return { ok: false, problem };
}

/**
 * Runtime flags a registry entry may not use: they change where the code comes from (another npm
 * registry or npm configuration, another Python index, a shell command instead of the package) or
 * hand the container this computer (`--privileged`, root, the host's namespaces). A public registry
 * entry has no business with them, and a person would not see the danger in a flag: refused, with why
 * (docs/decisions/catalog-and-install-links.md). Someone who needs one writes the entry by hand,
 * where the approval shows it.
 */
const REFUSED_FLAGS: Record<string, Record<string, string>> = {
  npx: {
    '--registry': 'would fetch the package from another npm registry',
    '--userconfig': 'would read another npm configuration (which can name another registry)',
    '--globalconfig': 'would read another npm configuration (which can name another registry)',
    '--call': 'would run a shell command instead of the package',
    '-c': 'would run a shell command instead of the package',
  },
  uvx: {
    '--from': 'would install the tool from another package or source',
    '--index': 'would fetch from another Python package index',
    '--index-url': 'would fetch from another Python package index',
    '-i': 'would fetch from another Python package index',
    '--extra-index-url': 'would fetch from another Python package index',
    '--default-index': 'would fetch from another Python package index',
    '--find-links': 'would fetch packages from other places',
    '-f': 'would fetch packages from other places',
  },
  docker: {
    '--privileged': 'would give the container full access to this computer',
  },
};

/** Docker flags refused only with some values: the host's namespaces, root, the whole disk. */
const DOCKER_REFUSED_VALUES: Record<string, { refused: (value: string) => boolean; why: string }> = {
  '-u': { refused: isRoot, why: 'would run the container as root' },
  '--user': { refused: isRoot, why: 'would run the container as root' },
  '-v': {
    refused: mountsHostRoot,
    why: 'would share this whole computer (or its Docker) with the container',
  },
  '--volume': {
    refused: mountsHostRoot,
    why: 'would share this whole computer (or its Docker) with the container',
  },
  '--mount': {
    refused: (v) => mountsHostRoot(/(?:^|,)(?:source|src)=([^,]*)/.exec(v)?.[1] ?? ''),
    why: 'would share this whole computer (or its Docker) with the container',
  },
  '--pid': {
    refused: (v) => v === 'host',
    why: "would let the container see and signal this computer's processes",
  },
  '--ipc': { refused: (v) => v === 'host', why: "would share this computer's memory with the container" },
  '--userns': { refused: (v) => v === 'host', why: 'would turn off user namespaces for the container' },
  '--uts': { refused: (v) => v === 'host', why: "would share this computer's host name settings" },
  '--cap-add': {
    refused: (v) => /^(?:all|sys_admin|cap_sys_admin)$/i.test(v),
    why: 'would give the container administrator powers over this computer',
  },
  '--security-opt': {
    refused: (v) => /unconfined|label[=:]disable/i.test(v),
    why: 'would turn off the container’s confinement',
  },
};

function isRoot(user: string): boolean {
  return /^(?:0|root)(?::.*)?$/.test(user);
}

/** A volume whose host side is `/` or Docker's own socket (`-v /:/host`, `/var/run/docker.sock:…`). */
function mountsHostRoot(spec: string): boolean {
  const source = spec.split(':')[0] ?? '';
  return /^\/+$/.test(source) || /(?:^|\/)docker\.sock$/.test(source);
}

/**
 * Environment variables a registry entry may not set, by name: they change where the runtime fetches
 * code from or load other code into it (the server's env is the runtime's env: npx, uvx, the docker
 * command itself).
 */
const REFUSED_ENV: [RegExp, string][] = [
  [/^npm_config_/i, 'would change npm’s configuration (another registry, another config file)'],
  [/^NODE_OPTIONS$/i, 'would load other code into Node.js (--require, --import)'],
  [/^NODE_PATH$/i, 'would make Node.js load modules from other folders'],
  [
    /^(?:UV_(?:DEFAULT_)?INDEX(?:_URL)?|UV_EXTRA_INDEX_URL|UV_FIND_LINKS|UV_INDEX_[A-Z0-9_]+)$/i,
    'would make uv fetch from another package index',
  ],
  [/^PIP_(?:INDEX_URL|EXTRA_INDEX_URL|FIND_LINKS)$/i, 'would make pip fetch from another package index'],
  [/^PYTHONPATH$/i, 'would make Python load modules from other folders'],
  [
    /^DOCKER_(?:HOST|CONTEXT|CONFIG)$/i,
    'would point the docker command at another Docker engine or configuration',
  ],
  [
    /^(?:LD_PRELOAD|LD_LIBRARY_PATH|DYLD_INSERT_LIBRARIES|DYLD_LIBRARY_PATH)$/i,
    'would load other code into the program',
  ],
];

/**
 * Why a registry entry's runtime arguments or environment are refused
 * (docs/decisions/catalog-and-install-links.md): one line
 * per flag or variable that would change where the code comes from or give the container this
 * computer, in plain words. Empty: none.
 */
export function refusedRuntimeSettings(
  runtime: string,
  words: readonly string[],
  envNames: readonly string[],
): string[] {
  const refused = REFUSED_FLAGS[runtime] ?? {};
  const reasons: string[] = [];
  words.forEach((word, i) => {
    const eq = word.indexOf('=');
    const flag = eq > 0 ? word.slice(0, eq) : word;
    const value = eq > 0 ? word.slice(eq + 1) : (words[i + 1] ?? '');
    const shown = (why: string, withValue: boolean) =>
      `runtime argument ${displayText(flag)}${withValue && value ? ` ${displayText(value.slice(0, 120))}` : ''}: ${why}`;
    // npm's per-scope registry: --@scope:registry=URL
    if (runtime === 'npx' && /^--@[^:]+:registry$/.test(flag))
      reasons.push(shown('would fetch that scope’s packages from another npm registry', true));
    else if (Object.hasOwn(refused, flag)) reasons.push(shown(refused[flag] ?? '', false));
    else if (runtime === 'docker' && Object.hasOwn(DOCKER_REFUSED_VALUES, flag)) {
      const rule = DOCKER_REFUSED_VALUES[flag];
      if (rule?.refused(value)) reasons.push(shown(rule.why, true));
    }
  });
  for (const name of envNames) {
    const rule = REFUSED_ENV.find(([pattern]) => pattern.test(name));
    if (rule) reasons.push(`environment variable ${displayText(name)}: ${rule[1]}`);
  }
  return reasons;
}

/**
 * Runtime flags that change what is fetched or what it may touch, by runtime, that a legitimate
 * entry may use (e.g. `uvx --with`, a docker volume of a chosen folder): shown as notes before
 * install; the approval shows them exactly too.
 */
const NOTEWORTHY_FLAGS: Record<string, Record<string, string>> = {
  npx: {
    '--package': 'installs another package than the one named',
    '-p': 'installs another package than the one named',
  },
  uvx: {
    '--with': 'installs extra packages',
    '--with-requirements': 'installs extra packages',
  },
  docker: {
    '-v': 'shares a folder of this computer with the container',
    '--volume': 'shares a folder of this computer with the container',
    '--mount': 'shares a folder of this computer with the container',
    '--network': 'changes the container’s network',
    '--net': 'changes the container’s network',
    '--pid': 'shares process visibility',
    '--ipc': 'shares memory with the host',
    '--cap-add': 'adds kernel capabilities',
    '--device': 'gives access to a device',
    '--security-opt': 'changes security options',
    '--entrypoint': 'runs another program in the image',
    '--env-file': 'reads environment variables from a file',
    '-u': 'runs as another user',
    '--user': 'runs as another user',
    '--userns': 'changes user namespaces',
    '-p': 'publishes a port',
    '--publish': 'publishes a port',
  },
};

/** Flags that take no value: the word after them is not theirs. */
const BARE_FLAGS = new Set(['--privileged']);

/** "--registry=https://x: fetches from another npm registry" for each noteworthy runtime flag. */
export function runtimeFlagNotes(runtime: string, words: readonly string[]): string[] {
  const flags = NOTEWORTHY_FLAGS[runtime] ?? {};
  const notes: string[] = [];
  words.forEach((word, i) => {
    const eq = word.indexOf('=');
    const flag = eq > 0 ? word.slice(0, eq) : word;
    const why = Object.hasOwn(flags, flag) ? flags[flag] : undefined;
    if (!why) return;
    const value = eq > 0 ? word.slice(eq + 1) : BARE_FLAGS.has(flag) ? '' : (words[i + 1] ?? '');
    const shownValue = value && !value.startsWith('-') ? ` ${displayText(value.slice(0, 120))}` : '';
    notes.push(`runtime argument ${displayText(flag)}${shownValue}: ${why}`);
  });
  return notes;
}
