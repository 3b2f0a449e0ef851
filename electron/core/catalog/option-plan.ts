import type { CatalogOption, InstallKind } from '../../../shared/catalog.ts';
import type { ZodError } from 'zod';
import type { EntryTemplate } from './entry-template.ts';

/** One way to install a server: what the person sees of it, and the entry it makes. */
export interface OptionPlan {
  view: CatalogOption;
  /** what buildConfig makes; undefined when the option has a problem that stops it */
  template: EntryTemplate | undefined;
}

/** An option that cannot be installed, and why. */
export function broken(id: string, kind: InstallKind, label: string, problem: string): OptionPlan {
  return {
    view: { id, kind, label, runtime: null, runtimePath: null, problem, notes: [], fields: [] },
    template: undefined,
  };
}

/** A package or remote entry that is not valid server.json: the first problem found, and where. */
export function invalid(
  id: string,
  kind: InstallKind,
  label: string,
  what: 'package' | 'remote',
  error: ZodError,
): OptionPlan {
  const issue = error.issues[0];
  const at = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return broken(
    id,
    kind,
    label,
    `this ${what} entry is not valid server.json (${at}${issue?.message ?? 'invalid'})`,
  );
}
