import { displayText } from '../../../shared/display-text.ts';
import type { StoredPackage } from '../../../shared/store.ts';

/**
 * What changed between two installed trees, package by package, in words a person reads before
 * approving an update: versions changed, packages added and removed, install scripts that are new.
 * Every name and version is display-safe (they come from a registry).
 */
export function packageChanges(before: readonly StoredPackage[], after: readonly StoredPackage[]): string[] {
  const versions = (list: readonly StoredPackage[]) => {
    const map = new Map<string, Set<string>>();
    for (const p of list) map.set(p.name, (map.get(p.name) ?? new Set()).add(p.version));
    return map;
  };
  const was = versions(before);
  const now = versions(after);
  const show = (set: Set<string> | undefined) => [...(set ?? [])].sort().map(displayText).join(', ');
  const changed: string[] = [];
  const added: string[] = [];
  const removed: string[] = [];
  for (const name of [...new Set([...was.keys(), ...now.keys()])].sort()) {
    const a = was.get(name);
    const b = now.get(name);
    const shown = displayText(name);
    if (!a) added.push(`added ${shown} ${show(b)}`);
    else if (!b) removed.push(`removed ${shown} ${show(a)}`);
    else if (show(a) !== show(b)) changed.push(`${shown} ${show(a)} → ${show(b)}`);
  }
  const hadScript = new Set(before.filter((p) => p.installScript).map((p) => `${p.name}@${p.version}`));
  const scripts = after
    .filter((p) => p.installScript && !hadScript.has(`${p.name}@${p.version}`))
    .map((p) => `new install script: ${displayText(`${p.name}@${p.version}`)}`);
  return [...changed, ...added, ...removed, ...scripts];
}
