import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startHeadless } from '../../headless/serve.ts';
import { EDITORS } from '../../core/editors/registry.ts';
import { UserError } from '../../core/errors.ts';
import { missingKeychainInChild } from '../../core/secrets/keychain-check.ts';
import type { CliContext } from '../context.ts';
import { findInstance } from '../../core/instance-file.ts';
import { UsageError } from '../output.ts';
import { watchParent } from '../parent-watch.ts';

/**
 * Runs Switchboard in the foreground until SIGINT/SIGTERM/SIGHUP, or until whatever started it exits
 * (parent-watch.ts), then stops every server cleanly.
 */
export async function serveCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'keychain'>,
  argv: string[],
): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { port: { type: 'string' } }, strict: true });
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError('--port takes a port number (1-65535)');
  }
  const running = findInstance(ctx.home);
  if (running) {
    throw new UserError(
      `Switchboard is already running for ${ctx.home.root} (pid ${running.pid}, port ${running.port})`,
      {
        hint: 'use `switchboard status`, or stop that one first',
      },
    );
  }
  await buildUiIfMissing(ctx);
  // Looked at before the core starts, so what is said is what the person left there.
  const hasFile = existsSync(ctx.home.serversFile);
  const headless = await startHeadless({ home: ctx.home, keychain: ctx.keychain(), env: ctx.env, port });
  const report = headless.core.status.report();
  ctx.output.out(`Switchboard is running (home: ${ctx.home.root}).`);
  ctx.output.out(`Bridge and control API: http://127.0.0.1:${headless.port}/`);
  ctx.output.out(
    `Open the UI: ${headless.bridge.sessions.issueLoginLink().url}  (one-time sign-in link, valid 10 minutes; \`switchboard ui\` prints a new one)`,
  );
  for (const line of editorsLine(headless)) ctx.output.out(line);
  for (const line of serversLine(report.servers.length, ctx.home.serversFile, hasFile)) ctx.output.out(line);
  if (headless.relaySocket.problem)
    ctx.output.err(`Claude Desktop's relay cannot reach Switchboard: ${headless.relaySocket.problem}`);
  if (report.configError) ctx.output.err(`servers.json has errors:\n${report.configError}`);
  for (const s of report.servers.filter((s) => s.state === 'pending-approval')) {
    ctx.output.out(`Waiting for approval: ${s.name} (run: switchboard approve ${s.name})`);
  }
  // Linux without a Secret Service: said at start, with what to install, not at the first secret.
  if (process.platform === 'linux')
    void missingKeychainInChild().then((err) => {
      if (err)
        ctx.output.err(
          `No keychain: ${err.reason}. Servers that use \${secret:…} cannot start, and secrets cannot be stored.\n` +
            `To fix it: ${err.hint ?? ''}.`,
        );
    });

  await new Promise<void>((resolve) => {
    const stop = (why: string) => {
      ctx.output.out(`\n${why}: stopping every server…`);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
      stopWatch();
      resolve();
    };
    const onSignal = (signal: NodeJS.Signals) => stop(signal);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal);
    const stopWatch = watchParent((parent) =>
      stop(`the process that started Switchboard (pid ${parent}) exited`),
    );
  });
  await headless.stop();
  ctx.output.out('Stopped.');
  return 0;
}

/**
 * A fresh clone has no UI build, and `npx switchboard serve` would serve a page saying so: build it
 * first, as `npm start` does (once; a stale build is left to `npm start`, which rebuilds it). Installed
 * builds ship the UI and never build.
 */
async function buildUiIfMissing(ctx: Pick<CliContext, 'env' | 'output'>): Promise<void> {
  if (ctx.env.SWITCHBOARD_SKIP_UI_BUILD) return;
  const { buildUiInChild, isSourceCheckout, uiBuilt } = await import('../../headless/ui-build.ts');
  if (uiBuilt() || !isSourceCheckout()) return;
  ctx.output.out('Building the UI first (this checkout has no build yet)…');
  const done = await buildUiInChild();
  if (done) ctx.output.out(done);
}

/**
 * Which editors Switchboard writes, said at every start, before anything is approved: automatic sync
 * is the product, but a person should know which files it touches and where to turn it off.
 */
function editorsLine(headless: Awaited<ReturnType<typeof startHeadless>>): string[] {
  const engine = headless.editors?.engine;
  if (!engine) return [];
  const active = engine.activeEditors().map((id) => EDITORS[id].label);
  if (!headless.core.state.autoSync())
    return [
      `Automatic editor sync is off (Settings): editors change only when you run \`switchboard sync\`${active.length ? ` (${active.join(', ')})` : ''}.`,
    ];
  if (active.length === 0)
    return ['No editor found to sync (`switchboard editors` lists where Switchboard looks).'];
  return [
    `Editors kept in sync: ${active.join(', ')} — each gets every server you approve. ` +
      'Turn this off in Settings (Sync editors automatically), or per editor with `switchboard unsync --editor ID`.',
  ];
}

/**
 * What serve says of the servers it found, ending with how to stop it (the line tests and benches
 * wait for): a missing servers.json is said to be missing, with how to add a server.
 */
function serversLine(count: number, file: string, exists: boolean): string[] {
  const add = 'Add one with: switchboard add NAME -- COMMAND ARGS…';
  if (!exists) return [`No servers yet: ${file} does not exist yet. ${add}`, 'Ctrl+C stops Switchboard.'];
  if (count === 0) return [`No servers configured in ${file}. ${add}`, 'Ctrl+C stops Switchboard.'];
  return [`${count} server${count === 1 ? '' : 's'} configured in ${file}; Ctrl+C stops them all.`];
}
