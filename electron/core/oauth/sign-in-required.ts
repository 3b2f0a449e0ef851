/**
 * A remote server's connection cannot go on until the person signs in (again): it has no tokens, its
 * refresh token stopped working, or a call needs a scope that was not granted. Switchboard never
 * opens a browser by itself for this; the server waits in `needs-sign-in` (or the one call fails)
 * and the person signs in from the UI, the tray or `switchboard login`.
 *
 * The message is what an editor's AI agent reads when its call fails: it says to sign in in
 * Switchboard and never names a command to run.
 */
export class SignInRequired extends Error {
  /**
   * signed-out: no usable tokens; more-scope: a call needs `scope` beyond what was granted;
   * new-authorization-server: the server now sends sign-ins to another authorization server (`issuer`)
   * than the one Switchboard's client is registered with (`was`)
   */
  readonly reason: 'signed-out' | 'more-scope' | 'new-authorization-server';
  readonly scope: string | undefined;
  /** the authorization server, for the person to recognise where they will sign in */
  readonly issuer: string | undefined;
  readonly was: string | undefined;

  constructor(
    reason: SignInRequired['reason'],
    options: { scope?: string; issuer?: string; was?: string; keychainProblem?: string | undefined } = {},
  ) {
    const at = options.issuer ? ` at ${hostOf(options.issuer)}` : '';
    // A sign-in is kept in the keychain: when it cannot be read, signing in needs it back first.
    const keychain = options.keychainProblem
      ? ` (Switchboard keeps sign-ins in the keychain, which it cannot use now: ${options.keychainProblem})`
      : '';
    super(
      reason === 'more-scope'
        ? `this needs more access than you granted${options.scope ? ` (scope "${options.scope}")` : ''}: sign in to it again in Switchboard to allow it`
        : reason === 'new-authorization-server'
          ? `it now sends its sign-in to another authorization server${at}${options.was ? ` (it was ${hostOf(options.was)})` : ''}: sign in to it again in Switchboard if you trust that address`
          : `it needs you to sign in${at}: sign in to it in Switchboard${keychain}`,
    );
    this.name = 'SignInRequired';
    this.reason = reason;
    this.scope = options.scope;
    this.issuer = options.issuer;
    this.was = options.was;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
