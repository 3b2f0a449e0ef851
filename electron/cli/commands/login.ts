import type { SignInOutcome, SignInStart } from '../../../shared/sign-in.ts';
import { UserError } from '../../core/errors.ts';
import { signInOpener } from '../../core/oauth/open-browser.ts';
import type { CliContext } from '../context.ts';
import { InstanceClient } from '../instance.ts';
import { offlineSignIns } from '../offline-core.ts';
import { singleName } from './trust.ts';

/**
 * `switchboard login NAME`: signs in to a remote server in the browser (printing the page's address
 * when no browser opens). With Switchboard running, the running instance does the sign-in and starts
 * the server with it; otherwise this process does, and Switchboard uses it from its next start.
 */
export async function loginCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'keychain' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
): Promise<number> {
  const name = singleName(argv, 'login');
  const client = InstanceClient.connect(ctx.home);
  if (client) {
    const abort = new AbortController();
    const events = client.subscribe(abort.signal);
    // Listening before the sign-in starts, so its end cannot be missed.
    await events.next();
    try {
      const start = await client.signIn(name);
      if (!(await show(ctx, name, start)) || start.status !== 'browser') return 0;
      for await (const event of events) {
        // This sign-in's end (starting it ended any earlier one, which says so too).
        if (event.type === 'sign-in' && event.outcome.id === start.id)
          return report(ctx, event.outcome, true);
      }
      throw new UserError(`Switchboard stopped before the sign-in to "${name}" finished`);
    } finally {
      abort.abort();
    }
  }
  const core = await offlineSignIns(ctx);
  // Only this process signs in here: the one sign-in that ends is this one.
  const outcome = new Promise<SignInOutcome>((resolve) => core.events.once('signIn', resolve));
  const start = await core.signIns.signIn(name);
  if (!(await show(ctx, name, start))) return 0;
  return report(ctx, await outcome, false);
}

/** `switchboard logout NAME`: forgets the server's sign-in (its tokens and OAuth client). */
export async function logoutCommand(
  ctx: Pick<CliContext, 'home' | 'env' | 'output' | 'keychain' | 'commandPath' | 'tokenFiles'>,
  argv: string[],
): Promise<number> {
  const name = singleName(argv, 'logout');
  const client = InstanceClient.connect(ctx.home);
  const had = client ? await client.signOut(name) : await (await offlineSignIns(ctx)).signIns.signOut(name);
  ctx.output.out(
    had
      ? `Signed out of "${name}": Switchboard forgot its tokens. It needs a sign-in before it runs again.`
      : `"${name}" had no sign-in to forget.`,
  );
  return 0;
}

/** Sends the person to the sign-in page; false when none was needed. */
async function show(
  ctx: Pick<CliContext, 'env' | 'output'>,
  name: string,
  start: SignInStart,
): Promise<boolean> {
  if (start.status === 'signed-in') {
    ctx.output.out(
      `"${name}" is signed in: the sign-in Switchboard holds still works (to start afresh: switchboard logout ${name}).`,
    );
    return false;
  }
  const opened = await signInOpener(ctx.env)(new URL(start.url));
  ctx.output.out(
    opened
      ? `Continue in your browser to sign in to "${name}". If it did not open, go to:\n  ${start.url}`
      : `Open this page in a browser to sign in to "${name}":\n  ${start.url}`,
  );
  ctx.output.out('Waiting for you to finish (Ctrl+C to give up)…');
  return true;
}

function report(ctx: Pick<CliContext, 'output'>, outcome: SignInOutcome, live: boolean): number {
  if (outcome.result === 'signed-in') {
    ctx.output.out(
      `Signed in to "${outcome.name}".${live ? ' Switchboard is starting it now.' : ' Switchboard uses it from its next start.'}`,
    );
    return 0;
  }
  throw new UserError(
    outcome.result === 'cancelled'
      ? `the sign-in to "${outcome.name}" was cancelled${outcome.message ? ` (${outcome.message})` : ''}`
      : `could not sign in to "${outcome.name}": ${outcome.message ?? 'unknown error'}`,
  );
}
