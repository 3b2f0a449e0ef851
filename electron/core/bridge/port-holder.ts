import { execFile } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { UserError } from '../errors.ts';
import { parseProcNetTcp, TCP_STATE } from './proc-net-tcp.ts';

/** Who listens on a TCP port, as far as this user may see: the owner's uid always, the pid if visible. */
export interface PortHolder {
  uid: number;
  /** the owner's login name, when it is known */
  user?: string | undefined;
  pid?: number | undefined;
  /** the holder's command line, shortened, control characters shown as \u… */
  command?: string | undefined;
}

export interface PortHolderOptions {
  platform?: NodeJS.Platform;
  /** where procfs is mounted (Linux) */
  procRoot?: string;
  passwdFile?: string;
  /** runs `lsof` (macOS); resolves with its stdout, or undefined when it cannot run */
  lsof?: (args: string[]) => Promise<string | undefined>;
}

/**
 * The process listening on `port` (any local address: 127.0.0.1, 0.0.0.0 or ::, each of which keeps
 * the bridge from binding 127.0.0.1). Linux: the listening socket's line in /proc/net/tcp{,6} gives
 * its owner's uid to anyone, and its inode leads to the pid through /proc/<pid>/fd for processes this
 * user may inspect. macOS: `lsof`, which shows other users' processes only to root. Windows: not
 * looked up (undefined).
 */
export async function findPortHolder(
  port: number,
  options: PortHolderOptions = {},
): Promise<PortHolder | undefined> {
  const platform = options.platform ?? process.platform;
  if (platform === 'linux') return fromProc(port, options.procRoot ?? '/proc', options.passwdFile);
  if (platform === 'darwin') return fromLsof(port, options.lsof ?? runLsof, options.passwdFile);
  return undefined;
}

/**
 * The error `serve` stops with when its port is taken, in one line: which port, whose process holds
 * it, what to do. Another user's process is the dangerous case: it would receive the tokens editors
 * send to this port.
 */
export function portInUseError(
  port: number,
  holder: PortHolder | undefined,
  ownUid: number | undefined = process.getuid?.(),
): UserError {
  const where = `port ${port} on 127.0.0.1`;
  const elsewhere = 'start Switchboard on another port (switchboard serve --port N)';
  if (!holder) {
    return new UserError(`${where} is already in use`, {
      hint: `another Switchboard may be running (try: switchboard status); or ${elsewhere}`,
    });
  }
  const pid = holder.pid === undefined ? undefined : `pid ${holder.pid}`;
  const what = holder.command ? `: ${holder.command}` : '';
  if (ownUid !== undefined && holder.uid !== ownUid) {
    const who = [holder.user ? `user ${holder.user}` : undefined, `uid ${holder.uid}`, pid].filter(Boolean);
    return new UserError(
      `${where} is held by another user's process (${who.join(', ')}${what}), which would receive the tokens editors send to it`,
      { hint: `${elsewhere} and find out why that user listens there` },
    );
  }
  return new UserError(
    `${where} is already in use by another of your processes (${pid ?? 'pid not visible'}${what})`,
    {
      hint: `probably an older Switchboard or another app; stop it, or ${elsewhere}`,
    },
  );
}

// ---- Linux ------------------------------------------------------------------------------------------

interface ProcListener {
  uid: number;
  inode: string;
}

/**
 * LISTEN sockets on `port` in a /proc/net/tcp or tcp6 table whose address keeps a listener from
 * binding 127.0.0.1 there: 127.0.0.1 or any address (0.0.0.0, ::, or those as IPv4-mapped IPv6).
 */
export function listenersInProcTable(table: string, port: number): ProcListener[] {
  return parseProcNetTcp(table)
    .filter((s) => s.state === TCP_STATE.LISTEN && s.local.port === port && blocksLoopback(s.local.address))
    .map(({ uid, inode }) => ({ uid, inode }));
}

/** 127.0.0.1, 0.0.0.0 or :: (IPv4-mapped forms arrive here as their IPv4 address). */
function blocksLoopback(address: Uint8Array): boolean {
  if (address.length === 16) return address.every((b) => b === 0);
  const [a, b, c, d] = address;
  return (a === 127 && b === 0 && c === 0 && d === 1) || (a === 0 && b === 0 && c === 0 && d === 0);
}

async function fromProc(
  port: number,
  proc: string,
  passwdFile: string | undefined,
): Promise<PortHolder | undefined> {
  let listener: ProcListener | undefined;
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(join(proc, 'net', table), 'utf8').catch(() => '');
    listener = listenersInProcTable(text, port)[0];
    if (listener) break;
  }
  if (!listener) return undefined;
  const pid = await pidOfSocket(proc, listener.inode);
  return {
    uid: listener.uid,
    user: await userName(listener.uid, passwdFile),
    pid,
    command: pid === undefined ? undefined : await commandOf(proc, pid),
  };
}

/** The process holding socket `inode`, among those whose fd folder this user may read. */
async function pidOfSocket(proc: string, inode: string): Promise<number | undefined> {
  const wanted = `socket:[${inode}]`;
  const pids = (await readdir(proc).catch(() => [])).filter((name) => /^\d+$/.test(name));
  for (const pid of pids) {
    const fds = await readdir(join(proc, pid, 'fd')).catch(() => []);
    for (const fd of fds) {
      if ((await readlink(join(proc, pid, 'fd', fd)).catch(() => '')) === wanted) return Number(pid);
    }
  }
  return undefined;
}

async function commandOf(proc: string, pid: number): Promise<string | undefined> {
  const raw = await readFile(join(proc, String(pid), 'cmdline'), 'utf8').catch(() => '');
  const command = raw.split('\0').filter(Boolean).join(' ');
  return command ? shown(command) : undefined;
}

// ---- macOS ------------------------------------------------------------------------------------------

async function fromLsof(
  port: number,
  lsof: (args: string[]) => Promise<string | undefined>,
  passwdFile: string | undefined,
): Promise<PortHolder | undefined> {
  const out = await lsof(['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fpcu']);
  if (!out) return undefined;
  // -F output: one field per line, a letter then the value (p pid, c command, u uid)
  const field = (letter: string) =>
    out
      .split('\n')
      .find((l) => l.startsWith(letter))
      ?.slice(1);
  const uid = Number(field('u'));
  if (!Number.isInteger(uid)) return undefined;
  const pid = Number(field('p'));
  const command = field('c');
  return {
    uid,
    user: await userName(uid, passwdFile),
    pid: Number.isInteger(pid) ? pid : undefined,
    command: command ? shown(command) : undefined,
  };
}

function runLsof(args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('lsof', args, { timeout: 3_000 }, (_err, stdout) => resolve(stdout || undefined));
  });
}

// ---- both -------------------------------------------------------------------------------------------

async function userName(uid: number, passwdFile = '/etc/passwd'): Promise<string | undefined> {
  const passwd = await readFile(passwdFile, 'utf8').catch(() => '');
  for (const line of passwd.split('\n')) {
    const [name, , id] = line.split(':');
    if (name && Number(id) === uid) return shown(name);
  }
  return undefined;
}

/** Shortened to 100 characters; control, format and line-break characters shown as \u…, never raw. */
function shown(text: string): string {
  const clipped = text.length > 100 ? `${text.slice(0, 99)}…` : text;
  return clipped.replace(
    /[\p{Cc}\p{Cf}\u2028\u2029]/gu,
    (c) => `\\u${c.codePointAt(0)?.toString(16).padStart(4, '0') ?? ''}`,
  );
}
