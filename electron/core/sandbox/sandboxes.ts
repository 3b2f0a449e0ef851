import {
  chmodSync,
  chownSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapCommand, type BwrapNetwork } from './bwrap.ts';
import { parseHostEntry, isLocalName } from './host-rules.ts';
import { NetworkGate, refusalWords, type GateRules, type Resolve } from './network-gate.ts';
import { startPortForward, startProxy, type Listening } from './network-proxy.ts';
import { NODE_PROXY_PRELOAD } from './node-proxy.ts';
import { PYTHON_SITECUSTOMIZE } from './python-proxy.ts';
import type { SandboxPolicy } from './policy.ts';
import { refusalInAnswer } from './answer-refusals.ts';
import { findRefusal } from './refusals.ts';
import { NOBODY, NOBODY_GIT_CONFIG } from './run-as.ts';
import { seatbeltCommand } from './seatbelt.ts';
import type { SandboxSupport } from './support.ts';
import type { SandboxRefusal, SandboxRun } from '../supervisor/types.ts';

/** What to run: a program, its arguments, folder and complete environment. */
export interface Program {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface SandboxesOptions {
  support: SandboxSupport;
  /** where the private folder for sockets goes (default: the OS temp folder; Unix socket paths are short) */
  tempRoot?: string;
  /** name lookups for the network proxy (tests) */
  resolve?: Resolve | undefined;
}

/**
 * Puts servers into their OS sandbox: builds the bubblewrap command line (Linux) or the Seatbelt
 * profile (macOS) for a policy, and runs each filtered server's own network proxy while it runs.
 * Owns one private folder (0700) for the proxies' sockets and the unreadable stand-ins of masks.
 */
export class Sandboxes {
  readonly support: SandboxSupport;
  readonly #tempRoot: string;
  readonly #resolve: Resolve | undefined;
  #folder: string | undefined;
  #count = 0;
  readonly #runs = new Set<SandboxRun>();

  constructor(options: SandboxesOptions) {
    this.support = options.support;
    this.#tempRoot = options.tempRoot ?? tmpdir();
    this.#resolve = options.resolve;
  }

  /** The program to spawn for `program` under `policy`, and its run (none when not sandboxed). */
  async wrap(program: Program, policy: SandboxPolicy): Promise<{ program: Program; run?: SandboxRun }> {
    const engine = this.support.engine;
    if (!policy.sandboxed || engine === null) return { program };
    mkdirSync(program.cwd, { recursive: true, mode: 0o700 });
    const nobody =
      policy.runsAs === 'nobody' && engine.kind === 'bwrap' && this.support.setpriv !== undefined;
    // As root, its own folder belongs to whoever it runs as this time: nobody, or root again (a
    // server granted root's folders to write; root without capabilities cannot enter nobody's 0700)
    if (this.support.root && engine.kind === 'bwrap')
      for (const g of policy.write) if (g.why === 'own folder') handOver(g.path, nobody ? NOBODY : ROOT);
    const listeners = new Set<(refusal: SandboxRefusal) => void>();
    const seen = new Set<string>();
    const tell = (refusal: SandboxRefusal) => {
      if (seen.has(refusal.words)) return;
      seen.add(refusal.words);
      for (const l of listeners) l(refusal);
    };
    const open: Listening[] = [];
    const release = async () => {
      this.#runs.delete(run);
      await Promise.all(open.splice(0).map((l) => l.close()));
    };
    const run: SandboxRun = {
      explain: (line) => findRefusal(line, policy),
      answered: (text, args, failed) => {
        const refusal = refusalInAnswer(text, args, failed, policy);
        if (refusal) tell(refusal);
      },
      onRefusal: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      release,
    };
    this.#runs.add(run);
    try {
      const filtered = policy.network.kind === 'internet' || policy.network.kind === 'list';
      const rules: GateRules | undefined =
        policy.network.kind === 'list'
          ? { kind: 'list', entries: policy.network.entries }
          : policy.network.kind === 'internet'
            ? { kind: 'internet' }
            : undefined;
      const gate = rules ? new NetworkGate(rules, this.#resolve) : undefined;
      const onRefusal = (refusal: string, add: string | undefined) =>
        tell({ kind: 'network', words: refusalWords(refusal, add) });
      const localPorts = policy.network.kind === 'list' ? listedLocalPorts(policy.network.entries) : [];
      let wrapped: { command: string; args: string[]; env: Record<string, string> };
      if (engine.kind === 'bwrap') {
        const folder = this.#privateFolder();
        let network: BwrapNetwork | undefined;
        const filter = this.support.networkFilter;
        if (filtered && gate && filter?.kind === 'socat') {
          const id = ++this.#count;
          const proxySocket = join(folder, `${id}.sock`);
          open.push(await startProxy({ path: proxySocket }, gate, onRefusal));
          // nobody must be able to connect (the folder around it is 0700: no one else on the host can)
          if (nobody) chmodSync(proxySocket, 0o666);
          const ports = [];
          for (const local of localPorts) {
            const socket = join(folder, `${id}-${local.port}.sock`);
            open.push(await startPortForward({ path: socket }, local.port, local.host));
            if (nobody) chmodSync(socket, 0o666);
            ports.push({ port: local.port, socket });
          }
          network = {
            socat: filter.path,
            proxySocket,
            ports,
            nodePreload: join(folder, 'node-proxy.cjs'),
            pythonSite: join(folder, 'python'),
          };
        }
        wrapped = bwrapCommand({
          bwrap: engine.path,
          policy,
          command: program.command,
          args: program.args,
          cwd: program.cwd,
          denied: { file: join(folder, 'denied-file'), dir: join(folder, 'denied-dir') },
          network,
          root: this.support.root,
          sized: this.support.tmpfsSize,
          prlimit: this.support.prlimit,
          setpriv: nobody ? this.support.setpriv : undefined,
          nodeOptions: program.env.NODE_OPTIONS,
          pythonPath: program.env.PYTHONPATH,
          nobodyGitConfig: join(folder, 'nobody.gitconfig'),
          gitConfigGlobal: program.env.GIT_CONFIG_GLOBAL,
        });
      } else {
        let proxyPort: number | undefined;
        if (filtered && gate) {
          const proxy = await startProxy({ port: 0, host: '127.0.0.1' }, gate, onRefusal);
          open.push(proxy);
          proxyPort = Number(proxy.address);
        }
        wrapped = seatbeltCommand({
          sandboxExec: engine.path,
          policy,
          command: program.command,
          args: program.args,
          proxyPort,
          localPorts: localPorts.map((p) => p.port),
          nodePreload: proxyPort === undefined ? undefined : join(this.#privateFolder(), 'node-proxy.cjs'),
          nodeOptions: program.env.NODE_OPTIONS,
          pythonSite: proxyPort === undefined ? undefined : join(this.#privateFolder(), 'python'),
          pythonPath: program.env.PYTHONPATH,
        });
      }
      return {
        program: {
          command: wrapped.command,
          args: wrapped.args,
          cwd: program.cwd,
          env: { ...program.env, ...wrapped.env },
        },
        run,
      };
    } catch (err) {
      await release();
      throw err;
    }
  }

  /** Closes every run's proxy and removes the private folder (Switchboard is stopping). */
  async dispose(): Promise<void> {
    await Promise.all([...this.#runs].map((r) => r.release()));
    if (this.#folder) {
      // An unreadable folder cannot be emptied, not even an empty one, by anyone but root.
      try {
        chmodSync(join(this.#folder, 'denied-dir'), 0o700);
      } catch {
        // not made yet
      }
      rmSync(this.#folder, { recursive: true, force: true });
    }
    this.#folder = undefined;
  }

  #privateFolder(): string {
    if (this.#folder) return this.#folder;
    const folder = mkdtempSync(join(this.#tempRoot, 'switchboard-sandbox-'));
    chmodSync(folder, 0o700);
    writeFileSync(join(folder, 'denied-file'), '');
    chmodSync(join(folder, 'denied-file'), 0);
    mkdirSync(join(folder, 'denied-dir'));
    chmodSync(join(folder, 'denied-dir'), 0);
    writeFileSync(join(folder, 'node-proxy.cjs'), NODE_PROXY_PRELOAD, { mode: 0o644 });
    writeFileSync(join(folder, 'nobody.gitconfig'), NOBODY_GIT_CONFIG, { mode: 0o644 });
    mkdirSync(join(folder, 'python'), { mode: 0o755 });
    writeFileSync(join(folder, 'python', 'sitecustomize.py'), PYTHON_SITECUSTOMIZE, { mode: 0o644 });
    this.#folder = folder;
    return folder;
  }
}

const ROOT = { uid: 0, gid: 0 } as const;

/**
 * Hands a server's own folder to a user, once: what is in it (files written as the other one)
 * included; after that, what the server makes is that user's already.
 */
function handOver(folder: string, to: { uid: number; gid: number }): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  if (lstatSync(folder).uid === to.uid) return;
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    // a link is handed over itself, never what it points to; the folder itself last, so a walk cut
    // short is done again at the next start
    if (stat.isSymbolicLink()) lchownSync(path, to.uid, to.gid);
    else chownSync(path, to.uid, to.gid);
  };
  walk(folder);
}

/** Listed ports on this computer (`localhost:5432`): forwarded as plain TCP, not only HTTP. */
function listedLocalPorts(entries: readonly string[]): { port: number; host: string }[] {
  const out: { port: number; host: string }[] = [];
  for (const text of entries) {
    const entry = parseHostEntry(text);
    if (entry.port === undefined || entry.subdomains || !isLocalName(entry.host)) continue;
    if (out.some((o) => o.port === entry.port)) continue;
    const host = entry.host === 'localhost' || entry.host.endsWith('.localhost') ? '127.0.0.1' : entry.host;
    out.push({ port: entry.port, host });
  }
  return out;
}
