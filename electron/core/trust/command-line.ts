import type { LaunchConfig } from '../../../shared/schema/state.ts';

/**
 * The exact command line an approval covers, untruncated, quoted the way a POSIX shell would need it
 * (shown to people; never executed through a shell). Env values are shown as written: references
 * stay references, so no secret is printed.
 */
export function describeLaunch(launch: LaunchConfig): string[] {
  if (launch.transport === 'http') {
    const lines = [`url: ${launch.url}`];
    for (const [key, value] of Object.entries(launch.headers ?? {})) lines.push(`header ${key}: ${value}`);
    return lines;
  }
  const lines = [`command: ${[launch.command ?? '', ...(launch.args ?? [])].map(shellQuote).join(' ')}`];
  if (launch.cwd) lines.push(`cwd: ${launch.cwd}`);
  for (const [key, value] of Object.entries(launch.env ?? {})) lines.push(`env ${key}=${value}`);
  return lines;
}

export function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
