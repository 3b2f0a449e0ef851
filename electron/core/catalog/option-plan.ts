import type { CatalogOption, InstallKind } from '../../../shared/catalog.ts';
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
