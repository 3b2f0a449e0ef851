import { realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { proxyEnv } from './proxy-env.ts';
import { isInside, namesSecret, type SandboxPolicy } from './policy.ts';

type Sandboxed = Extract<SandboxPolicy, { sandboxed: true }>;

export interface SeatbeltInput {
  sandboxExec: string;
  policy: Sandboxed;
  command: string;
  args: readonly string[];
  /** the server's proxy on 127.0.0.1 (internet or a list): the one way out */
  proxyPort: number | undefined;
  /** listed ports on this computer, reachable directly */
  localPorts: readonly number[];
  /** path of the Node preload that sends HTTP(S) through the proxy (node-proxy.ts) */
  nodePreload?: string | undefined;
  /** the server's own NODE_OPTIONS, kept before the preload */
  nodeOptions?: string | undefined;
  /** path of the folder with Python's sitecustomize for aiohttp (python-proxy.ts) */
  pythonSite?: string | undefined;
  /** the server's own PYTHONPATH, kept after it */
  pythonPath?: string | undefined;
  /** real path of a path (Seatbelt sees paths with symlinks resolved: /tmp is /private/tmp) */
  realPath?: (path: string) => string;
}

type Rule = { depth: number; order: number; text: string };

/**
 * macOS: `sandbox-exec -p PROFILE command args…` with a Seatbelt profile made from the policy. The
 * profile allows by default and then takes away, so system frameworks keep working without a list of
 * every service they use: reads of the hidden areas (home, Switchboard's home, /Volumes), writes
 * everywhere but granted folders and temp, outgoing connections but to the proxy (and listed local
 * ports). In Seatbelt the last matching rule wins, so rules go shallowest path first, and for one
 * path hide, then grant, then mask. Not run on macOS in this project's tests: docs/decisions/sandbox.md
 * lists what it does not cover.
 */
export function seatbeltCommand(input: SeatbeltInput): {
  command: string;
  args: string[];
  env: Record<string, string>;
} {
  const profile = seatbeltProfile(input);
  const env: Record<string, string> = { ...input.policy.env };
  if (input.proxyPort !== undefined) Object.assign(env, proxyEnv(input.proxyPort, input));
  return { command: input.sandboxExec, args: ['-p', profile, input.command, ...input.args], env };
}

export function seatbeltProfile(input: SeatbeltInput): string {
  const { policy } = input;
  const real = input.realPath ?? realOrSame;
  const path = (p: string) => real(p);
  const grants = [
    ...policy.read.map((g) => ({ ...g, path: path(g.path), writable: false })),
    ...policy.write.map((g) => ({ ...g, path: path(g.path), writable: true })),
  ];
  const temp = policy.temp.map(path);
  const hidden = policy.hidden.map(path);
  const rules: Rule[] = [];
  const add = (p: string, order: number, text: string) => rules.push({ depth: depthOf(p), order, text });

  for (const h of hidden) add(h, 0, `(deny file-read* file-write* (subpath ${quote(h)}))`);
  for (const g of grants) {
    const ops = g.writable ? 'file-read* file-write*' : 'file-read*';
    add(g.path, 1, `(allow ${ops} (subpath ${quote(g.path)}))`);
  }
  for (const raw of policy.secrets) {
    const s = path(raw);
    if (grants.some((g) => g.path === s && namesSecret(g, s))) continue; // the person asked for exactly it
    const visible =
      ![...hidden, ...temp].some((h) => isInside(s, h)) ||
      grants.some((g) => g.path !== s && isInside(s, g.path));
    if (visible) add(s, 2, `(deny file-read* file-write* (subpath ${quote(s)}))`);
  }
  rules.sort((a, b) => a.depth - b.depth || a.order - b.order);

  const lines = [
    '(version 1)',
    '(allow default)',
    '; the system stays read-only; its own folder, granted folders and temp are writable',
    '(deny file-write*)',
    `(allow file-write* ${[...temp.map((t) => `(subpath ${quote(t)})`), '(literal "/dev/null")', '(literal "/dev/zero")', '(regex #"^/dev/fd/")', '(regex #"^/dev/tty")'].join(' ')})`,
    '; hidden areas, granted paths and secret places, shallowest first (the last matching rule wins)',
    ...rules.map((r) => r.text),
    '; other processes: their arguments and environment',
    '(deny process-info*)',
    '(allow process-info* (target same-sandbox))',
    ...networkRules(policy, input),
  ];
  return lines.join('\n') + '\n';
}

function networkRules(policy: Sandboxed, input: SeatbeltInput): string[] {
  const kind = policy.network.kind;
  if (kind === 'open') return [];
  const lines = [
    '; network: only through its proxy (and listed ports on this computer)',
    '(deny network-outbound)',
  ];
  if (kind === 'none') return ['; network: none', '(deny network-outbound)'];
  const ports = [...(input.proxyPort !== undefined ? [input.proxyPort] : []), ...input.localPorts];
  for (const port of ports) lines.push(`(allow network-outbound (remote ip "localhost:${port}"))`);
  return lines;
}

/** An SBPL string literal. */
function quote(text: string): string {
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function depthOf(path: string): number {
  return path.split('/').filter(Boolean).length;
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // Not there (yet): resolve its nearest existing parent, so /tmp/x still becomes /private/tmp/x.
    const parent = posix.dirname(path);
    return parent === path ? path : posix.join(realOrSame(parent), posix.basename(path));
  }
}
