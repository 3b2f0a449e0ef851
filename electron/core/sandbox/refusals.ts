import { accessSync, constants, existsSync } from 'node:fs';
import { posix } from 'node:path';
import { displayText } from '../../../shared/display-text.ts';
import { canRead, canWrite } from './access.ts';
import { isInside, type SandboxPolicy } from './policy.ts';
import type { SandboxRefusal } from '../supervisor/types.ts';
import { tilde } from './words.ts';

type Sandboxed = Extract<SandboxPolicy, { sandboxed: true }>;

/** How a failed file operation reads in a program's error output (Node, Python, shells, coreutils). */
const DENIED = /EACCES|EPERM|permission denied|operation not permitted|errno 13|errno 1\b/i;
const READ_ONLY = /EROFS|read-only file system|errno 30/i;
const MISSING = /ENOENT|no such file or directory|errno 2\b/i;
const WRITE_WORDS =
  /cannot create|\bwrite\b|\bmkdir\b|\bEROFS\b|\bopen '[^']*', 'w|\brename\b|\bunlink\b|\bcopyfile\b/i;
const PATHS = /(?:'|"|\s|^)((?:~|\/)[^'"\s:,]*)/g;
const NO_DNS =
  /EAI_AGAIN|ENOTFOUND|Temporary failure in name resolution|Name or service not known|getaddrinfo/i;

/** What the sandbox refused (supervisor/types.ts says what each field means). */
export type Refusal = SandboxRefusal;

/** explainRefusal's words only. */
export function explainRefusal(
  line: string,
  policy: Sandboxed,
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  return findRefusal(line, policy, exists)?.words;
}

/**
 * Reads one line of a sandboxed server's error output (or of a tool's answer) for signs that the
 * sandbox refused something, and says so in words with the fix ("sandbox refused reading
 * ~/.config/x/config.json: add it to sandbox.read"). Only what can be told from the line and the
 * policy: a path it could not use that the policy hides (a missing file counts only when it exists
 * outside the sandbox; a folder it could not make, when it could be made outside), or a failed name
 * lookup where only the proxy reaches out. Refused connections are told by the proxy itself.
 */
export function findRefusal(
  line: string,
  policy: Sandboxed,
  exists: (path: string) => boolean = existsSync,
  writableOutside: (path: string) => boolean = canMakeOutside,
): Refusal | undefined {
  const proc = /\/proc\/(\d+)\//.exec(line);
  if (proc && MISSING.test(line) && exists(`/proc/${proc[1]}`)) {
    return {
      kind: 'process',
      words: `sandbox refused reading /proc/${proc[1]}: other programs' processes (their environment, their command lines) are hidden from servers`,
    };
  }
  const refused =
    /ECONNREFUSED[^\d]*((?:127(?:\.\d+){3}|localhost|::1|\[::1\]):(\d+))|((?:127(?:\.\d+){3}|localhost):(\d+))[^\n]*ECONNREFUSED/.exec(
      line,
    );
  if (refused && policy.network.kind !== 'open') {
    const target = refused[1] ?? refused[3] ?? '';
    return {
      kind: 'network',
      words: `sandbox refused connecting to ${target} on this computer: add "${target}" to sandbox.network if it should reach it`,
    };
  }
  const denied = DENIED.test(line);
  const readOnly = READ_ONLY.test(line);
  const missing = MISSING.test(line);
  if (denied || readOnly || missing) {
    // Making a folder or a file is writing, wherever it is (a hidden parent refuses it too).
    const writing = readOnly || WRITE_WORDS.test(line);
    // Last first: messages name the path last ("open '/x'"), a program name may come first ("/bin/sh: …").
    for (const match of [...line.matchAll(PATHS)].reverse()) {
      const raw = (match[1] ?? '').replace(/[.)\]]+$/, '');
      if (raw.length < 2) continue;
      const path = raw.startsWith('~') && policy.userHome ? `${policy.userHome}${raw.slice(1)}` : raw;
      if (writing && !canWrite(path, policy)) {
        // Missing inside: its folder is hidden or read-only there, and outside it could be made.
        if (readOnly || denied || (missing && writableOutside(path)))
          return refusedPath('writing', path, policy);
        continue;
      }
      if (!writing && !canRead(path, policy) && (denied || (missing && exists(path))))
        return refusedPath('reading', path, policy);
    }
  }
  if (NO_DNS.test(line) && (policy.network.kind === 'internet' || policy.network.kind === 'list')) {
    return {
      kind: 'network',
      words:
        'sandbox: no direct network — it reaches out only over HTTP(S) through its proxy (HTTPS_PROXY); a program that ignores the proxy or needs other connections needs "network": "all" in its sandbox',
    };
  }
  if (NO_DNS.test(line) && policy.network.kind === 'none') {
    return { kind: 'network', words: 'sandbox: it has no network ("network": "none")' };
  }
  return undefined;
}

/** Outside the sandbox, the nearest folder above `path` that exists is one this user may write in. */
function canMakeOutside(path: string): boolean {
  let dir = posix.dirname(path);
  while (dir !== '/' && !existsSync(dir)) dir = posix.dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The path to grant for a refused one: an application's folder in a standard place of the home
 * (~/.cache/ms-playwright for ~/.cache/ms-playwright/chromium-1187/…), else the path itself.
 */
export function grantPath(path: string, home: string | undefined): string {
  if (!home) return path;
  for (const place of STANDARD_PLACES) {
    const root = posix.join(home, place);
    if (!isInside(path, root) || path === root) continue;
    const first = path.slice(root.length + 1).split('/')[0] ?? '';
    return posix.join(root, first);
  }
  return path;
}

/** Folders in the home where applications keep a folder of their own (XDG, and dot-folders). */
const STANDARD_PLACES = [
  '.cache',
  '.config',
  '.local/share',
  '.local/state',
  'Library/Caches',
  'Library/Application Support',
];

/** The refusal of one path: words with the fix, and the grant that fixes it (none for a secret place). */
export function refusedPath(what: 'reading' | 'writing', path: string, policy: Sandboxed): Refusal {
  const shown = tilde(path, policy.userHome);
  const secret = policy.secrets.find((s) => isInside(path, s));
  const field = what === 'reading' ? 'sandbox.read' : 'sandbox.write';
  const access = what === 'reading' ? 'read' : 'write';
  if (secret) {
    // A secret place is opened only by the person writing it in servers.json: no one-step grant.
    return {
      kind: 'file',
      words: `sandbox refused ${what} ${shown}: it is in ${tilde(secret, policy.userHome)}, kept hidden from servers; add exactly what it needs to ${field} if you trust it`,
    };
  }
  const grant = grantPath(path, policy.userHome);
  // The path comes from the server's own output: one with characters that would be shown escaped
  // (bidi, controls) is never offered as a button or a command to paste, only named in words.
  if (displayText(grant) !== grant)
    return {
      kind: 'file',
      words: `sandbox refused ${what} ${shown}: its name holds hidden characters; add it to ${field} by hand if you trust it`,
    };
  return {
    kind: 'file',
    words: `sandbox refused ${what} ${shown}: add it to ${field}`,
    grant: { path: grant, access },
  };
}
