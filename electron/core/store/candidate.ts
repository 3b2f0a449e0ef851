import type { PackagePin, StoredPackage } from '../../../shared/store.ts';
import type { PackageRun } from './package-run.ts';

/**
 * A package resolved for an approval, not approved yet: the pin it would be, the lockfile (or hashed
 * requirements, or manifest) that pin names, and what the approval shows about it.
 */
export interface Candidate {
  run: PackageRun;
  /** install scripts off; `scriptsPin` is the same with the approval naming them */
  pin: PackagePin;
  /** the text whose hash is `pin.lock` (kept in the store once approved); "" for an image digest */
  lockText: string;
  packages: StoredPackage[];
  publishedAt: string | null;
  latest: string | null;
  /** what runs, for the approval (program and its arguments, from the store) */
  runs: string[];
  /** where it installs */
  folder: string | undefined;
  /** things to know before approving */
  notes: string[];
}

/** The same pin with the install scripts of its tree allowed (the approval names them). */
export function withScripts(candidate: Candidate): PackagePin | undefined {
  const scripts = candidate.packages.filter((p) => p.installScript).map((p) => `${p.name}@${p.version}`);
  return scripts.length > 0 ? { ...candidate.pin, scripts } : undefined;
}
