import { grantSandboxPath } from '../../core/config/sandbox-grant.ts';
import { readServerValue } from '../../core/config/edit.ts';
import { UserError } from '../../core/errors.ts';
import { withEditRecorded } from '../../core/services/source-record.ts';
import { ProjectService } from '../../core/projects/project-service.ts';
import { projectServerEditRefusal } from '../../core/projects/project-server-edits.ts';
import type { CliContext } from '../context.ts';
import { UsageError } from '../output.ts';

/**
 * `switchboard grant NAME read|write PATH`: the one step `status` offers for what a server's sandbox
 * refused. It edits servers.json; the running Switchboard sees the change and asks for approval.
 */
export async function grantCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output'>,
  argv: string[],
): Promise<number> {
  const [name, access, path, ...extra] = argv;
  if (!name || !path || extra.length || (access !== 'read' && access !== 'write'))
    throw new UsageError('usage: switchboard grant NAME read|write PATH');
  const origin = new ProjectService(ctx.home.root).originOf(name);
  if (origin && readServerValue(ctx.home.serversFile, name) === undefined)
    throw new UserError(projectServerEditRefusal(name, origin, 'grant'));
  const { written, changed } = await withEditRecorded(ctx.home, name, 'sandbox-grant', () =>
    grantSandboxPath(ctx.home.serversFile, name, { access, path }, ctx.env.HOME),
  );
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
