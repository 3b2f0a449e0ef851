import { existsSync } from 'node:fs';
import { canRead, canWrite } from './access.ts';
import { isInside, type SandboxPolicy } from './policy.ts';
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

/**
 * Reads one line of a sandboxed server's error output for signs that the sandbox refused something,
 * and says so in words with the fix ("sandbox refused reading ~/.config/x/config.json: add it to
 * sandbox.read"). Only what can be told from the line and the policy: a path it could not use that
 * the policy hides (a missing file counts only when it exists outside the sandbox), or a failed name
 * lookup where only the proxy reaches out. Refused connections are told by the proxy itself.
 */
export function explainRefusal(
  line: string,
  policy: Sandboxed,
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  const proc = /\/proc\/(\d+)\//.exec(line);
  if (proc && MISSING.test(line) && exists(`/proc/${proc[1]}`)) {
    return `sandbox refused reading /proc/${proc[1]}: other programs' processes (their environment, their command lines) are hidden from servers`;
  }
  const refused =
    /ECONNREFUSED[^\d]*((?:127(?:\.\d+){3}|localhost|::1|\[::1\]):(\d+))|((?:127(?:\.\d+){3}|localhost):(\d+))[^\n]*ECONNREFUSED/.exec(
      line,
    );
  if (refused && policy.network.kind !== 'open') {
    const target = refused[1] ?? refused[3] ?? '';
    return `sandbox refused connecting to ${target} on this computer: add "${target}" to sandbox.network if it should reach it`;
  }
  const denied = DENIED.test(line);
  const readOnly = READ_ONLY.test(line);
  const missing = MISSING.test(line);
  if (denied || readOnly || missing) {
    // Last first: messages name the path last ("open '/x'"), a program name may come first ("/bin/sh: …").
    for (const match of [...line.matchAll(PATHS)].reverse()) {
      const raw = (match[1] ?? '').replace(/[.)\]]+$/, '');
      if (raw.length < 2) continue;
      const path = raw.startsWith('~') && policy.userHome ? `${policy.userHome}${raw.slice(1)}` : raw;
      const readable = canRead(path, policy);
      const writing = readOnly || (readable && WRITE_WORDS.test(line));
      if (writing && !canWrite(path, policy) && (readOnly || denied)) return words('writing', path, policy);
      if (!writing && !readable && (denied || (missing && exists(path))))
        return words('reading', path, policy);
    }
  }
  if (NO_DNS.test(line) && (policy.network.kind === 'internet' || policy.network.kind === 'list')) {
    return 'sandbox: no direct network — it reaches out only over HTTP(S) through its proxy (HTTPS_PROXY); a program that ignores the proxy or needs other connections needs "network": "all" in its sandbox';
  }
  if (NO_DNS.test(line) && policy.network.kind === 'none') {
    return 'sandbox: it has no network ("network": "none")';
  }
  return undefined;
}

function words(what: 'reading' | 'writing', path: string, policy: Sandboxed): string {
  const shown = tilde(path, policy.userHome);
  const secret = policy.secrets.find((s) => isInside(path, s));
  const field = what === 'reading' ? 'sandbox.read' : 'sandbox.write';
  if (secret) {
    return `sandbox refused ${what} ${shown}: it is in ${tilde(secret, policy.userHome)}, kept hidden from servers; add exactly what it needs to ${field} if you trust it`;
  }
  return `sandbox refused ${what} ${shown}: add it to ${field}`;
}
