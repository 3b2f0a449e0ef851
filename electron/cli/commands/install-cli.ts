import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  installLauncher,
  launcherPlace,
  launcherText,
  onPath,
  removeLauncher,
  type LauncherPlace,
  type LauncherTarget,
} from '../../core/cli-launcher.ts';
import { sourceNode } from '../../core/editors/relay-command.ts';
import { BIN_PATH, binFlags } from '../bin-flags.ts';
import type { CliContext } from '../context.ts';
import { usageOf } from '../help.ts';
import { UsageError } from '../output.ts';

/**
 * `switchboard install-cli`: puts a `switchboard` on PATH that runs this Switchboard's CLI with the
 * project's Node directly, with the Node flags of bin.mjs's shebang: no npm in between (1.4 s
 * and engine warnings per command through npx). `--remove` takes it away again.
 */
export async function installCliCommand(
  ctx: Pick<CliContext, 'env' | 'output'>,
  argv: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { dir: { type: 'string' }, remove: { type: 'boolean', default: false } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length) throw new UsageError(usageOf('install-cli'));
  const standard = launcherPlace(ctx.env);
  const place: LauncherPlace = values.dir
    ? {
        dir: values.dir,
        file: join(values.dir, process.platform === 'win32' ? 'switchboard.cmd' : 'switchboard'),
      }
    : standard;
  if (values.remove) {
    ctx.output.out(
      removeLauncher(place) ? `Removed ${place.file}.` : `There is no switchboard command at ${place.file}.`,
    );
    return 0;
  }
  const before = installLauncher(place, launcherText(sourceTarget()));
  ctx.output.out(
    before === 'current'
      ? `${place.file} is already this Switchboard's command.`
      : `${before === 'absent' ? 'Installed' : 'Updated'} ${place.file}: \`switchboard …\` runs ${sourceTarget().args.at(-1)}.`,
  );
  if (!onPath(place.dir, ctx.env)) {
    ctx.output.out(
      process.platform === 'win32'
        ? `${place.dir} is not on your PATH: add it in Settings → System → About → Advanced system settings → Environment Variables.`
        : `${place.dir} is not on your PATH yet: add this line to your shell's profile (~/.profile, ~/.bashrc or ~/.zshrc) and open a new terminal:\n  export PATH="${place.dir}:$PATH"`,
    );
  }
  return 0;
}

/** This checkout's CLI, run by the project's Node with bin.mjs's own flags (its shebang's). */
function sourceTarget(): LauncherTarget {
  return { command: sourceNode(), args: [...binFlags(), BIN_PATH] };
}
