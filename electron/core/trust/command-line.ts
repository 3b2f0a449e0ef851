import { displayText } from '../../../shared/display-text.ts';
import type { LaunchConfig } from '../../../shared/schema/state.ts';
import { listReferences, type ServerReference } from '../secrets/references.ts';

/**
 * The exact command line an approval covers, untruncated, quoted the way a POSIX shell would need it
 * (shown to people; never executed through a shell). Env values are shown as written: references
 * stay references, so no secret is printed. A symlinked command also shows the real file it is (what
 * the approval pins). Every part goes through displayText, so control, bidi, line-break and invisible
 * characters show as `\u{…}` instead of redrawing the line. A local server without `cwd` runs in
 * its own folder (`ownFolder`, the home's data/<name>), which is said too.
 */
export function describeLaunch(launch: LaunchConfig, ownFolder?: string): string[] {
  if (launch.transport === 'http') {
    const lines = [`url: ${displayText(launch.url ?? '')}`];
    for (const [key, value] of Object.entries(launch.headers ?? {}))
      lines.push(`header ${displayText(key)}: ${displayText(value)}`);
    return lines;
  }
  const words = [launch.command ?? '', ...(launch.args ?? [])].map((word) => displayText(shellQuote(word)));
  const lines = [`command: ${words.join(' ')}`];
  if (launch.realCommand) lines.push(`real file: ${displayText(launch.realCommand)}`);
  if (launch.cwd) lines.push(`cwd: ${displayText(launch.cwd)}`);
  else if (ownFolder) lines.push(`runs in: ${displayText(ownFolder)} (its own folder)`);
  for (const [key, value] of Object.entries(launch.env ?? {}))
    lines.push(`env ${displayText(key)}=${displayText(value)}`);
  if (launch.sandbox !== undefined) lines.push(`sandbox: ${displayText(JSON.stringify(launch.sandbox))}`);
  if (launch.sandboxGaps?.length)
    lines.push(`not enforced here: ${launch.sandboxGaps.map(displayText).join(', ')}`);
  return lines;
}

export function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Every keychain secret and environment variable a launch config passes on, and where to, in plain
 * words: "sends your keychain secret "github-token" in header Authorization to https://…". Shown with
 * every approval whatever the config's source, since an approved reference is resolved and sent.
 */
export function describeReferences(launch: LaunchConfig): string[] {
  const refs = listReferences({
    env: launch.env,
    headers: launch.headers,
    args: launch.args,
    url: launch.url,
  });
  return refs.map((ref) => {
    const what =
      ref.kind === 'secret' ? `your keychain secret "${ref.name}"` : `your environment variable ${ref.name}`;
    return launch.transport === 'http' ? remoteUse(what, ref, launch) : localUse(what, ref, launch);
  });
}

function remoteUse(what: string, ref: ServerReference, launch: LaunchConfig): string {
  const to = displayText(launch.url ?? '');
  if (ref.field === 'url') return `sends ${what} as part of the address it connects to: ${to}`;
  return `sends ${what} in header ${displayText(ref.key)} to ${to}`;
}

function localUse(what: string, ref: ServerReference, launch: LaunchConfig): string {
  const program = displayText(launch.realCommand ?? launch.command ?? '');
  if (ref.field === 'args') {
    const n = Number(/^args\[(\d+)\]$/.exec(ref.key)?.[1] ?? 0) + 1;
    return `gives ${what} to ${program} as argument ${n} (on its command line, which other users of this computer can see while it runs)`;
  }
  return `gives ${what} to ${program} in env ${displayText(ref.key)}`;
}
