import { UserError } from '../core/errors.ts';
import { assertSecretName, type Keychain } from '../core/secrets/keychain.ts';
import type { SecretHeld } from '../../shared/ui-api.ts';
import type { CliContext } from './context.ts';
import { InstanceClient } from './instance.ts';

/**
 * The keychain of a running `switchboard serve`, through its control API. On a headless machine serve
 * runs inside the D-Bus session that has the Secret Service, and another terminal has none (issue 36
 * item 2): while serve runs, every keychain operation of the CLI goes through it. Values go in and
 * never come out, as on the control API itself.
 */
export class InstanceKeychain implements Keychain {
  readonly #client: InstanceClient;

  constructor(client: InstanceClient) {
    this.#client = client;
  }

  get(name: string): Promise<string | undefined> {
    return Promise.reject(
      new UserError(`secret "${name}" cannot be read through the running Switchboard`, {
        hint: 'secret values are write-only while serve runs; stop serve to work on the keychain directly',
      }),
    );
  }

  async set(name: string, value: string): Promise<void> {
    assertSecretName(name);
    await this.#client.setSecret(name, value);
  }

  async delete(name: string): Promise<boolean> {
    assertSecretName(name);
    if (!(await this.list()).includes(name)) return false;
    await this.#client.deleteSecret(name);
    return true;
  }

  async list(): Promise<string[]> {
    const report = await this.#client.secrets();
    if (report.keychainError) throw new UserError(report.keychainError);
    return report.secrets
      .filter((s) => s.stored)
      .map((s) => s.name)
      .sort();
  }

  held(name: string, value: string): Promise<SecretHeld> {
    assertSecretName(name);
    return this.#client.secretHeld(name, value);
  }
}

/** The keychain a command uses: the running serve's when there is one, else the OS keychain. */
export function cliKeychain(ctx: Pick<CliContext, 'home' | 'keychain'>): Keychain {
  const client = InstanceClient.connect(ctx.home);
  return client ? new InstanceKeychain(client) : ctx.keychain();
}
