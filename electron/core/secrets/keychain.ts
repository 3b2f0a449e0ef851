import { createRequire } from 'node:module';
import type { AsyncEntry, EntryOptions } from '@napi-rs/keyring';
import { SECRET_NAME_PATTERN } from '../../../shared/secrets.ts';
import type { SecretHeld } from '../../../shared/ui-api.ts';
import { UserError } from '../errors.ts';

/** Every Switchboard secret lives under this service name in the OS keychain. */
export const KEYCHAIN_SERVICE = 'switchboard';

/** Names only ever leave the keychain through this interface; values only through `get`. */
export interface Keychain {
  /** the stored value, or undefined when no secret has that name */
  get(name: string): Promise<string | undefined>;
  set(name: string, value: string): Promise<void>;
  /** true if a secret was deleted, false if there was none */
  delete(name: string): Promise<boolean>;
  /** secret names, sorted; never values */
  list(): Promise<string[]>;
  /**
   * Whether `name` is free, holds `value` already, or holds another value: what naming a new secret
   * needs, answerable without handing the value out (a keychain reached through serve).
   */
  held(name: string, value: string): Promise<SecretHeld>;
}

/** `held` for a keychain that can read its values. */
export async function heldByValue(keychain: Keychain, name: string, value: string): Promise<SecretHeld> {
  const stored = await keychain.get(name);
  return stored === undefined ? 'none' : stored === value ? 'same' : 'other';
}

export function isValidSecretName(name: string): boolean {
  return SECRET_NAME_PATTERN.test(name);
}

/** Throws a UserError unless `name` is a usable secret name. */
export function assertSecretName(name: string): void {
  if (isValidSecretName(name)) return;
  const shown = name.length > 80 ? `${name.slice(0, 80)}…` : name;
  throw new UserError(`"${shown}" is not a valid secret name`, {
    hint: 'use 1 to 64 letters, digits, ".", "-" or "_" (for example: github-token)',
  });
}

type KeychainAction = 'read' | 'store' | 'delete' | 'list';

/**
 * A keychain call that failed: `reason` says why in words (with the library's detail), `unreachable`
 * when there is no keychain to talk to at all (Linux without a Secret Service), so a caller can say what
 * it was doing in its own words ("could not store … ") and keep the why and the fix.
 */
export class KeychainError extends UserError {
  readonly reason: string;
  readonly unreachable: boolean;
  constructor(
    what: string,
    reason: string,
    options: { hint: string; cause?: unknown; unreachable?: boolean },
  ) {
    super(`${what}: ${reason}`, options);
    this.name = 'KeychainError';
    this.reason = reason;
    this.unreachable = options.unreachable ?? false;
  }
}

export interface OsKeychainOptions {
  /** default `switchboard`; tests may isolate themselves under another service */
  service?: string;
  /** which platform's wording to use in errors; default process.platform */
  platform?: NodeJS.Platform;
  /**
   * How long one keychain call may take. An unlock prompt waits for a person, so this is generous;
   * it only keeps a wedged Secret Service from hanging a server's start forever.
   */
  timeoutMs?: number;
}

/**
 * The OS keychain through @napi-rs/keyring: macOS Keychain, Windows Credential Manager, and on Linux
 * the Secret Service (gnome-keyring, KWallet, KeePassXC). The Linux store is pinned to the Secret
 * Service: the library would otherwise fall back silently to the kernel keyring, which forgets
 * everything at reboot. Every failure becomes a UserError saying what is missing and what to do; there
 * is no fallback to a file.
 */
export class OsKeychain implements Keychain {
  readonly #service: string;
  readonly #platform: NodeJS.Platform;
  readonly #timeoutMs: number;

  constructor(options: OsKeychainOptions = {}) {
    this.#service = options.service ?? KEYCHAIN_SERVICE;
    this.#platform = options.platform ?? process.platform;
    this.#timeoutMs = options.timeoutMs ?? 120_000;
  }

  async get(name: string): Promise<string | undefined> {
    assertSecretName(name);
    const value = await this.#call('read', name, (signal) => this.#entry(name).getPassword(signal));
    return value ?? undefined;
  }

  async set(name: string, value: string): Promise<void> {
    assertSecretName(name);
    if (value === '') {
      throw new UserError(`the value for secret "${name}" is empty`, {
        hint: 'nothing was stored; give a non-empty value',
      });
    }
    await this.#call('store', name, (signal) => this.#entry(name).setPassword(value, signal), value);
  }

  async delete(name: string): Promise<boolean> {
    assertSecretName(name);
    return this.#call('delete', name, (signal) => this.#entry(name).deleteCredential(signal));
  }

  async list(): Promise<string[]> {
    // findCredentials hands back passwords too: keep only the account names, at once.
    const credentials = await this.#call('list', undefined, (signal) =>
      keyring().findCredentialsAsync(this.#service, undefined, signal),
    );
    const names = new Set<string>();
    for (const credential of credentials) names.add(credential.account);
    return [...names].sort();
  }

  held(name: string, value: string): Promise<SecretHeld> {
    return heldByValue(this, name, value);
  }

  #entry(name: string): AsyncEntry {
    const options: EntryOptions = { linux: { store: 'secret-service' } };
    return new (keyring().AsyncEntry)(this.#service, name, options);
  }

  async #call<T>(
    action: KeychainAction,
    name: string | undefined,
    run: (signal: AbortSignal) => Promise<T>,
    value?: string,
  ): Promise<T> {
    const signal = AbortSignal.timeout(this.#timeoutMs);
    try {
      return await run(signal);
    } catch (err) {
      throw keychainError(this.#platform, action, name, err, {
        timedOut: signal.aborted,
        timeoutMs: this.#timeoutMs,
        value,
      });
    }
  }
}

/**
 * The native keychain module, loaded at the first keychain call: every CLI command builds a context
 * with a keychain, and most (`status`, `help`) never touch it.
 */
function keyring(): typeof import('@napi-rs/keyring') {
  // require, not import(): the desktop app's main bundle is CommonJS and keeps this module external.
  return createRequire(import.meta.url)('@napi-rs/keyring') as typeof import('@napi-rs/keyring');
}

/**
 * Turns a keychain library failure into an error a person can act on. The library's own message is
 * kept as a detail (it never contains the value, and the value is scrubbed anyway in case it ever did).
 */
export function keychainError(
  platform: NodeJS.Platform,
  action: KeychainAction,
  name: string | undefined,
  err: unknown,
  context: { timedOut?: boolean; timeoutMs?: number; value?: string | undefined } = {},
): KeychainError {
  const what =
    action === 'list'
      ? 'could not list the secrets in the keychain'
      : `could not ${action} secret "${name}" ${action === 'store' ? 'in' : 'from'} the keychain`;
  const raw = err instanceof Error ? err.message : String(err);
  const leaks = context.value !== undefined && context.value !== '' && raw.includes(context.value);
  const detail = leaks && context.value ? raw.split(context.value).join('[redacted]') : raw;
  // An error whose text held the value is not kept as the cause either.
  const cause = leaks ? undefined : err;
  if (context.timedOut) {
    return new KeychainError(
      what,
      `the keychain did not answer within ${Math.round((context.timeoutMs ?? 0) / 1000)} s`,
      { hint: `${unlockHint(platform)}, then try again`, cause },
    );
  }
  const { problem, hint, unreachable } = platformProblem(platform, detail);
  return new KeychainError(what, `${problem} (${detail})`, { hint, cause, unreachable });
}

/** What to do on Linux when no Secret Service answers: which one to install, and how it gets started. */
export const LINUX_SECRET_SERVICE_HINT =
  'install and start a Secret Service: GNOME Keyring (Debian/Ubuntu: sudo apt install gnome-keyring; ' +
  'Fedora: sudo dnf install gnome-keyring) or KeePassXC with its Secret Service integration on. A desktop ' +
  'session starts it when you log in; without one (SSH, a server), run Switchboard inside ' +
  "`dbus-run-session` with `gnome-keyring-daemon --unlock` (the README's Quick start shows how). " +
  'Switchboard never stores secrets in a plain file';

function platformProblem(
  platform: NodeJS.Platform,
  detail: string,
): { problem: string; hint: string; unreachable?: boolean } {
  if (/ambiguous/i.test(detail)) {
    return {
      problem: 'more than one keychain entry matches this name',
      hint: `remove the duplicate "${KEYCHAIN_SERVICE}" entries with your keychain manager, then set the secret again`,
    };
  }
  switch (platform) {
    case 'darwin':
      return {
        problem: 'the macOS Keychain is locked or refused access',
        hint: 'unlock your login keychain (Keychain Access, or log in again) and allow Switchboard when macOS asks',
      };
    case 'win32':
      return {
        problem: 'Windows Credential Manager is not available',
        hint: 'make sure the Credential Manager service is running and you are signed in to a normal user session',
      };
    default: {
      const unreachable =
        /connect|dbus|d-bus|socket|no such file|not provided|org\.freedesktop\.secrets|autolaunch/i;
      if (unreachable.test(detail)) {
        return {
          problem: 'no Secret Service reachable on the D-Bus session bus',
          hint: LINUX_SECRET_SERVICE_HINT,
          unreachable: true,
        };
      }
      return {
        problem: 'the Secret Service is locked or has no default keyring',
        hint: "unlock gnome-keyring or KeePassXC's Secret Service (or create a default keyring in it), then try again",
      };
    }
  }
}

function unlockHint(platform: NodeJS.Platform): string {
  switch (platform) {
    case 'darwin':
      return 'unlock your login keychain and answer the macOS prompt';
    case 'win32':
      return 'check that Windows Credential Manager is running';
    default:
      return "unlock gnome-keyring or KeePassXC's Secret Service (an unlock prompt may be waiting)";
  }
}

/**
 * A keychain held in memory only, for tests and for code that must run without an OS keychain in a
 * sandbox. Never a fallback for OsKeychain: nothing here survives the process.
 */
export class MemoryKeychain implements Keychain {
  readonly #values = new Map<string, string>();

  async get(name: string): Promise<string | undefined> {
    assertSecretName(name);
    return this.#values.get(name);
  }

  async set(name: string, value: string): Promise<void> {
    assertSecretName(name);
    if (value === '') throw new UserError(`the value for secret "${name}" is empty`);
    this.#values.set(name, value);
  }

  async delete(name: string): Promise<boolean> {
    assertSecretName(name);
    return this.#values.delete(name);
  }

  async list(): Promise<string[]> {
    return [...this.#values.keys()].sort();
  }

  held(name: string, value: string): Promise<SecretHeld> {
    return heldByValue(this, name, value);
  }
}
