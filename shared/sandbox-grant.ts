/** A path a server's sandbox refused, and the access that lets it use it. */
export interface SandboxGrant {
  path: string;
  access: 'read' | 'write';
}

/** The one command that grants it (CLI status, the tray and the UI say the same). */
export function grantCommand(server: string, grant: SandboxGrant): string {
  const quote = (word: string) =>
    /^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
  return `switchboard grant ${quote(server)} ${grant.access} ${quote(grant.path)}`;
}
