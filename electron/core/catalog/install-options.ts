import type { OptionPlan } from './option-plan.ts';
import { packageOption, type OptionContext } from './package-option.ts';
import { remoteOption } from './remote-option.ts';
import type { ServerDoc } from './server-doc.ts';

/**
 * A server.json's packages and remotes as ways to install it: for each, the values a person must or
 * may give (fields), and a template of the servers.json entry that `buildConfig` fills in with the
 * answers. The mapping is the one MCP clients share (VS Code's gallery): npm → `npx -y pkg@version`,
 * PyPI → `uvx pkg==version`, OCI → `docker run -i --rm … image:tag`, each as
 * `RUNTIME [runtimeArguments] PACKAGE [packageArguments]`; environment variables go to the server's
 * env (and to the container with `-e NAME`, never with their value on the command line); a remote is
 * its URL with its headers. The command always follows the package type, never `runtimeHint`: an entry
 * cannot make a "npm package" run under another program.
 *
 * This is what the catalog uses; the parts live next to it: one option as shown and as made
 * (option-plan.ts), a package's (package-option.ts, its arguments in package-arguments.ts), a
 * remote's (remote-option.ts), the fields a person fills in (option-fields.ts), the entry they make
 * (entry-template.ts) and what is refused (entry-refusals.ts).
 */

export type { OptionPlan } from './option-plan.ts';
export type { OptionContext } from './package-option.ts';
export { buildConfig } from './entry-template.ts';
export { borrowedByEntry, refusedAsFilled } from './entry-refusals.ts';
export { fieldIssue } from './option-fields.ts';

/** Every way the document offers, packages first, in its order. */
export function installOptions(doc: ServerDoc, context: OptionContext): OptionPlan[] {
  return [
    ...doc.packages.map((pkg, i) => packageOption(pkg, i, context)),
    ...doc.remotes.map((remote, i) => remoteOption(remote, i)),
  ];
}
