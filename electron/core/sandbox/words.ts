import { displayText } from '../../../shared/display-text.ts';
import { hiddenPrograms } from './access.ts';
import { isLocalName, parseHostEntry } from './host-rules.ts';
import { isInside, type Grant, type GrantReason, type NetworkPolicy, type SandboxPolicy } from './policy.ts';

const WHY: Record<GrantReason, string> = {
  'servers.json': '',
  argument: 'given in its arguments',
  'own folder': 'its own folder',
  program: 'where its program is installed',
  cwd: 'its working folder',
  store: 'the packages servers run from',
  toolchain: '',
  'name lookups': 'name lookups (DNS)',
};

/**
 * The access a policy gives, in plain words, one line each: what the approval card, `switchboard
 * approve` and the notification show ("reads and writes ~/projects (given in its arguments)";
 * "network: only api.github.com"). Paths under the home are written with "~".
 */
export function describeAccess(policy: SandboxPolicy): string[] {
  if (!policy.sandboxed) {
    return [
      `NOT sandboxed: it can read and change everything you can (your SSH keys, cloud credentials, browser profiles, other servers' data) and reach any network — ${displayText(policy.because)}`,
    ];
  }
  const short = (path: string) => displayText(tilde(path, policy.userHome));
  const grant = (g: Grant) => (WHY[g.why] ? `${short(g.path)} (${WHY[g.why]})` : short(g.path));
  const writes = policy.write.map(grant);
  const reads = policy.read.filter((g) => g.why !== 'toolchain').map(grant);
  // One true thing about the home: granted as a whole (then the toolchains are no news), or hidden
  // but for the grants listed and the toolchains.
  const home = policy.userHome;
  const wholeHome =
    home !== undefined && [...policy.read, ...policy.write].some((g) => isInside(home, g.path));
  const rest = wholeHome
    ? ''
    : `; of ${reads.some((r) => r.startsWith('~/')) ? 'the rest of ' : ''}your home folder only language toolchains (~/.nvm, ~/.npm/_npx, ~/.local/share/uv, …)`;
  const lines = [
    `reads and writes only: ${[...writes, 'a private temp folder'].join(', ')}`,
    `reads: the system (read-only)${reads.length ? `, ${reads.join(', ')}` : ''}${rest}`,
    `cannot see${wholeHome ? ', even in your home folder' : ''}: your keys and credentials (~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, ~/.netrc, ~/.docker/config.json, …), browser profiles, keyrings, your editors' settings files and Switchboard's tokens, other servers' folders, the desktop session's and system services' sockets (/run), other programs' processes`,
    networkWords(policy.network),
  ];
  if (policy.runsAs === 'nobody')
    lines.push('runs as the user nobody, not as root (Switchboard runs as root)');
  if (policy.runsAs === 'root')
    lines.push(
      'runs as root, because Switchboard does and it uses folders that nobody could (writes them, or reads root-only ones): it can read what only root may read (/etc/shadow, root-only files) — run Switchboard as an ordinary user',
    );
  const through = proxyOnlyWords(policy.network);
  if (through) lines.push(through);
  for (const [key, value] of Object.entries(policy.env))
    lines.push(`gets ${key}=${short(value)} so its data stays in its own folder`);
  const hidden = hiddenPrograms(policy);
  if (hidden.length)
    lines.unshift(
      `WILL NOT START: its sandbox hides ${hidden.map(short).join(', ')}, which it needs to run (a place kept hidden from servers); install the program elsewhere, or add exactly that path to sandbox.read in servers.json if you trust it`,
    );
  return lines;
}

/** One line for `status` and the server list: "sandboxed; writes ~/projects; network: api.github.com". */
export function summarizeAccess(policy: SandboxPolicy): string {
  if (!policy.sandboxed) return `NOT sandboxed (${displayText(policy.because)})`;
  const extra = policy.write
    .filter((g) => g.why !== 'own folder')
    .map((g) => displayText(tilde(g.path, policy.userHome)));
  const reads = policy.read
    .filter((g) => g.why === 'servers.json' || g.why === 'argument')
    .map((g) => displayText(tilde(g.path, policy.userHome)));
  const parts = ['sandboxed'];
  parts.push(extra.length ? `writes its own folder, ${extra.join(', ')}` : 'writes only its own folder');
  if (reads.length) parts.push(`reads ${reads.join(', ')}`);
  parts.push(networkWords(policy.network));
  if (proxyOnlyWords(policy.network)) parts.push('only programs that use HTTPS_PROXY reach it');
  return parts.join('; ');
}

function networkWords(network: NetworkPolicy): string {
  switch (network.kind) {
    case 'internet':
      return "network: any host on the internet over HTTP(S), through Switchboard's proxy; nothing on this computer";
    case 'list':
      return `network: only ${network.entries.map(displayText).join(', ')} (through Switchboard's proxy)`;
    case 'none':
      return 'network: none';
    case 'open':
      return network.unfiltered
        ? `network: NOT filtered — ${displayText(network.unfiltered.because)}: it can reach any host and this computer's own services`
        : "network: everything, this computer's own services included";
  }
}

/**
 * A filtered network is an HTTP proxy and nothing else (bwrap.ts, seatbelt.ts): say who reaches it
 * (docs/decisions/sandbox-network.md, "Every runtime reaches the proxy"), and that the rest has no network.
 */
function proxyOnlyWords(network: NetworkPolicy): string | undefined {
  if (network.kind !== 'internet' && network.kind !== 'list') return undefined;
  const local =
    network.kind === 'list' &&
    network.entries
      .map(parseHostEntry)
      .some((e) => e.port !== undefined && !e.subdomains && isLocalName(e.host));
  return (
    'reaches the network only through that proxy (HTTPS_PROXY): Node 18+ (fetch, http, https, axios), ' +
    "Python's urllib, requests, httpx and aiohttp, Go, Bun and Deno use it; a program that ignores it " +
    `(database drivers, SSH and other raw TCP) reaches ${local ? 'only the listed ports on this computer' : 'nothing'}`
  );
}

export function tilde(path: string, home: string | undefined): string {
  if (!home) return path;
  if (path === home) return '~';
  return path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}
