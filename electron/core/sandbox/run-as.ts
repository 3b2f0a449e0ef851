/**
 * Who a sandboxed server runs as. Under an ordinary user, that user (bubblewrap's user namespace maps
 * it to itself). Under root, root's file permissions would still apply inside the sandbox with every
 * capability dropped (/etc/shadow is root's to read), and a user namespace made by root maps to uid 0
 * again: so the server becomes nobody (65534) through setpriv, first thing inside. Its own folder is
 * then handed to nobody. A server that root granted other folders to write keeps running as root:
 * nobody could not write them (said on the approval; docs/decisions/sandbox.md).
 */
export const NOBODY = { uid: 65534, gid: 65534 } as const;

export type RunsAs = 'you' | 'nobody' | 'root';

/**
 * The git config (GIT_CONFIG_GLOBAL) of a server that runs as nobody. git refuses a repository owned by
 * another user ("dubious ownership"), and under a root serve every repository the person granted is
 * root's: a git server could then use none. Inside the sandbox a server sees only what it was granted,
 * so trusting every repository it can see trusts exactly the person's grants. The person's own
 * ~/.gitconfig is hidden with the home either way; an entry that sets GIT_CONFIG_GLOBAL keeps its own.
 */
export const NOBODY_GIT_CONFIG = '[safe]\n\tdirectory = *\n';

/** The setpriv line that makes the rest of the command line run as nobody, with no groups or caps. */
export function setprivPrefix(setpriv: string): string[] {
  return [
    setpriv,
    `--reuid=${NOBODY.uid}`,
    `--regid=${NOBODY.gid}`,
    '--clear-groups',
    '--inh-caps=-all',
    '--',
  ];
}
