import { grantSandboxPath } from '../../core/config/sandbox-grant.ts';
import type { CliContext } from '../context.ts';
import { UsageError } from '../output.ts';

/**
 * `switchboard grant NAME read|write PATH`: the one step `status` offers for what a server's sandbox
 * refused. It edits servers.json; the running Switchboard sees the change and asks for approval.
 */
export async function grantCommand(ctx: CliContext, argv: string[]): Promise<number> {
  const [name, access, path, ...extra] = argv;
  if (!name || !path || extra.length || (access !== 'read' && access !== 'write'))
    throw new UsageError('usage: switchboard grant NAME read|write PATH');
  const { written, changed } = grantSandboxPath(ctx.home.serversFile, name, { access, path }, ctx.env.HOME);
  if (!changed) {
    ctx.output.out(`"${name}" may ${access} ${written} already; nothing changed.`);
    return 0;
  }
  ctx.output.out(
    `Added ${written} to "${name}"'s sandbox.${access} in ${ctx.home.serversFile}.\n` +
      `It waits for your approval of the change: switchboard approve ${name}`,
  );
  return 0;
}
