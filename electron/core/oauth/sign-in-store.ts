import {
  OAuthClientInformationFullSchema,
  OAuthClientInformationSchema,
  OAuthTokensSchema,
  type OAuthClientInformationMixed,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';
import type { Keychain } from '../secrets/keychain.ts';

/**
 * Sign-ins live in the OS keychain under a service of their own, apart from the person's secrets:
 * they are not theirs to name, list or reference from servers.json.
 */
export const SIGN_IN_KEYCHAIN_SERVICE = 'switchboard-oauth';

/** What Switchboard keeps of one server's sign-in. Only ever in the keychain and in memory. */
export interface SignInRecord {
  /** the server URL it was made for: a record never goes to another URL */
  url: string;
  /** the OAuth client Switchboard is at that server's authorization server (registered or given) */
  client?: OAuthClientInformationMixed | undefined;
  tokens?: OAuthTokens | undefined;
  /** epoch ms when the access token expires, from the token answer's expires_in */
  expiresAt?: number | undefined;
  /** a scope a call needed beyond what was granted: asked for at the next sign-in */
  wantedScope?: string | undefined;
}

const StoredSchema = z.object({
  v: z.literal(1),
  url: z.string(),
  client: z.unknown().optional(),
  tokens: z.unknown().optional(),
  expiresAt: z.number().optional(),
  wantedScope: z.string().optional(),
});

const ClientSchema = z.union([OAuthClientInformationFullSchema, OAuthClientInformationSchema]);

/**
 * Windows Credential Manager keeps at most 2,560 bytes per entry (1,280 UTF-16 characters), less than
 * a record with a JWT access token and a refresh token: longer records are kept in parts, the first
 * entry saying how many (`<server>`, `<server>.1`, `<server>.2`, …).
 */
const PART_CHARS = 1_000;
const MAX_PARTS = 16;
const PARTS_HEADER = /^switchboard-parts:(\d+):/;

/**
 * Per-server sign-in records in the keychain (one entry per server, named after it), cached in memory
 * so the connection and a sign-in in progress see each other's writes at once. A record made for
 * another URL reads as empty: changing a server's url never sends its tokens to the new address.
 */
export class SignInStore {
  readonly #keychain: Keychain;
  readonly #cache = new Map<string, Promise<SignInRecord | undefined>>();

  constructor(keychain: Keychain) {
    this.#keychain = keychain;
  }

  /** The server's record for `url` (an empty one when there is none for that URL). */
  async read(server: string, url: string): Promise<SignInRecord> {
    const record = await this.#load(server);
    return record && record.url === url ? record : { url };
  }

  /** True when the server has tokens for `url`. */
  async signedIn(server: string, url: string): Promise<boolean> {
    return (await this.read(server, url)).tokens !== undefined;
  }

  async write(server: string, record: SignInRecord): Promise<void> {
    const stored = {
      v: 1,
      url: record.url,
      ...(record.client ? { client: record.client } : {}),
      ...(record.tokens ? { tokens: record.tokens } : {}),
      ...(record.expiresAt !== undefined ? { expiresAt: record.expiresAt } : {}),
      ...(record.wantedScope ? { wantedScope: record.wantedScope } : {}),
    };
    this.#cache.set(server, Promise.resolve(record));
    try {
      await this.#save(server, JSON.stringify(stored));
    } catch (err) {
      this.#cache.delete(server);
      throw err;
    }
  }

  /** Changes the server's record for `url` (starting from an empty one). */
  async update(server: string, url: string, change: (record: SignInRecord) => SignInRecord): Promise<void> {
    await this.write(server, change(await this.read(server, url)));
  }

  /** Forgets everything about the server's sign-in; true if there was something. */
  async forget(server: string): Promise<boolean> {
    this.#cache.set(server, Promise.resolve(undefined));
    const first = await this.#keychain.get(server);
    await this.#deleteParts(server, partsOf(first), 1);
    return this.#keychain.delete(server);
  }

  async #save(server: string, text: string): Promise<void> {
    const before = partsOf(await this.#keychain.get(server));
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += PART_CHARS) chunks.push(text.slice(i, i + PART_CHARS));
    if (chunks.length > MAX_PARTS) throw new Error(`the sign-in of "${server}" is too large to keep`);
    if (chunks.length <= 1) await this.#keychain.set(server, text);
    else {
      // The later parts first: the first entry names them only once they are there.
      for (let i = 1; i < chunks.length; i++) await this.#keychain.set(`${server}.${i}`, chunks[i] ?? '');
      await this.#keychain.set(server, `switchboard-parts:${chunks.length}:${chunks[0] ?? ''}`);
    }
    await this.#deleteParts(server, before, Math.max(1, chunks.length));
  }

  async #read(server: string): Promise<string | undefined> {
    const first = await this.#keychain.get(server);
    const count = partsOf(first);
    if (first === undefined || count <= 1) return first;
    let text = first.replace(PARTS_HEADER, '');
    for (let i = 1; i < count; i++) {
      const part = await this.#keychain.get(`${server}.${i}`);
      if (part === undefined) return undefined; // torn: read as no sign-in
      text += part;
    }
    return text;
  }

  async #deleteParts(server: string, count: number, from: number): Promise<void> {
    for (let i = from; i < count; i++) await this.#keychain.delete(`${server}.${i}`);
  }

  #load(server: string): Promise<SignInRecord | undefined> {
    let loading = this.#cache.get(server);
    if (!loading) {
      loading = this.#read(server).then(parseRecord);
      // A failed read (keychain locked) is tried again next time, not remembered.
      loading.catch(() => this.#cache.delete(server));
      this.#cache.set(server, loading);
    }
    return loading;
  }
}

/** How many entries a record takes (1 unless its first entry says more). */
function partsOf(first: string | undefined): number {
  const count = first === undefined ? undefined : PARTS_HEADER.exec(first)?.[1];
  return count === undefined ? 1 : Math.min(Number(count), MAX_PARTS);
}

/** A stored record, or undefined when it is missing or unreadable (then the person signs in again). */
function parseRecord(text: string | undefined): SignInRecord | undefined {
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const stored = StoredSchema.safeParse(json);
  if (!stored.success) return undefined;
  const client = ClientSchema.safeParse(stored.data.client);
  const tokens = OAuthTokensSchema.safeParse(stored.data.tokens);
  return {
    url: stored.data.url,
    client: client.success ? client.data : undefined,
    tokens: tokens.success ? tokens.data : undefined,
    expiresAt: stored.data.expiresAt,
    wantedScope: stored.data.wantedScope,
  };
}
