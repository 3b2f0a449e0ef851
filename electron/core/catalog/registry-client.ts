import type { z } from 'zod';
import { displayText } from '../../../shared/display-text.ts';
import { RegistryListSchema, RegistryServerResponseSchema } from '../../../shared/catalog.ts';
import { UserError } from '../errors.ts';

/** Why the registry's answer could not be used. `notFound`: it answered, and has no such server. */
export class RegistryError extends UserError {
  readonly notFound: boolean;
  constructor(message: string, options: { hint?: string; cause?: unknown; notFound?: boolean } = {}) {
    super(message, options);
    this.name = 'RegistryError';
    this.notFound = options.notFound ?? false;
  }
}

export interface RegistryClientOptions {
  /** the registry's base address, checked (registry-address.ts) */
  baseUrl: string;
  fetch?: typeof fetch;
  /** per request; the official registry answers in well under a second */
  timeoutMs?: number;
  /** an answer larger than this is refused (a page of 100 servers is ~200 KB) */
  maxBytes?: number;
}

export type RegistryList = z.infer<typeof RegistryListSchema>;
export type RegistryServerResponse = z.infer<typeof RegistryServerResponseSchema>;

/** What one request brought: the URL asked (the cache's key) and the answer, checked. */
export interface RegistryAnswer<T> {
  url: string;
  body: T;
}

export const PAGE_SIZE = 30;

/**
 * The MCP Registry's read API, v0.1: `GET /v0.1/servers?search=&cursor=&limit=&version=latest` and
 * `GET /v0.1/servers/{name}/versions/{version}`. Every failure is a RegistryError in words a person can
 * act on (cannot reach it, it timed out, it answered an HTML page, an error status, something that is
 * not a server list); nothing the registry sends is trusted beyond its schema and size.
 */
export class RegistryClient {
  readonly baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;

  constructor(options: RegistryClientOptions) {
    this.baseUrl = options.baseUrl;
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
  }

  listUrl(search: string, cursor?: string, limit = PAGE_SIZE): string {
    const query = new URLSearchParams({ version: 'latest', limit: String(limit) });
    if (search) query.set('search', search);
    if (cursor) query.set('cursor', cursor);
    return `${this.baseUrl}/v0.1/servers?${query.toString()}`;
  }

  serverUrl(name: string, version = 'latest'): string {
    return `${this.baseUrl}/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`;
  }

  async list(search: string, cursor?: string): Promise<RegistryAnswer<RegistryList>> {
    const url = this.listUrl(search, cursor);
    return { url, body: this.#check(await this.#get(url), RegistryListSchema, 'a list of servers') };
  }

  async server(name: string, version?: string): Promise<RegistryAnswer<RegistryServerResponse>> {
    const url = this.serverUrl(name, version);
    const what = `server ${name}${version ? ` ${version}` : ''}`;
    return {
      url,
      body: this.#check(
        await this.#get(url, what),
        RegistryServerResponseSchema,
        `the server.json of ${what}`,
      ),
    };
  }

  #check<T>(body: unknown, schema: z.ZodType<T>, what: string): T {
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? ` (${issue.path.join('.')}: ${issue.message})` : '';
    throw new RegistryError(`the registry at ${this.baseUrl} answered something that is not ${what}${at}`, {
      hint: 'is this address an MCP registry (API v0.1)? Check it in Settings',
    });
  }

  async #get(url: string, what?: string): Promise<unknown> {
    const signal = AbortSignal.timeout(this.#timeoutMs);
    let res: Response;
    try {
      res = await this.#fetch(url, {
        headers: { accept: 'application/json', 'user-agent': 'Switchboard' },
        redirect: 'follow',
        signal,
      });
    } catch (err) {
      throw new RegistryError(
        `cannot reach the registry at ${this.baseUrl}: ${networkWords(err, signal, this.#timeoutMs)}`,
        {
          hint: 'check your connection, or try again later',
          cause: err,
        },
      );
    }
    if (res.status === 404 && what) {
      await res.body?.cancel();
      throw new RegistryError(`the registry at ${this.baseUrl} has no ${what}`, { notFound: true });
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new RegistryError(
        `the registry at ${this.baseUrl} answered HTTP ${res.status}${res.statusText ? ` ${displayText(res.statusText.slice(0, 60))}` : ''}`,
        {
          hint:
            res.status >= 500
              ? 'it may be down for a while; try again later'
              : 'check the registry address in Settings',
        },
      );
    }
    const type = res.headers.get('content-type') ?? '';
    if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
      await res.body?.cancel();
      throw new RegistryError(
        `the registry at ${this.baseUrl} answered ${type ? displayText(type.split(';')[0]?.slice(0, 60) ?? '') : 'without a content type'}, not JSON`,
        {
          hint: 'is this address an MCP registry (API v0.1)? A captive portal or proxy page looks like this too',
        },
      );
    }
    const text = await this.#readLimited(res, signal);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new RegistryError(`the registry at ${this.baseUrl} answered JSON that does not parse`, {
        hint: 'try again later; if it persists, the registry is broken',
      });
    }
  }

  /** The body as text, refusing more than maxBytes (read as it streams, never all at once). */
  async #readLimited(res: Response, signal: AbortSignal): Promise<string> {
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > this.#maxBytes) {
      await res.body?.cancel();
      throw this.#tooLarge();
    }
    if (!res.body) return '';
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > this.#maxBytes) {
          await reader.cancel();
          throw this.#tooLarge();
        }
        chunks.push(value);
      }
    } catch (err) {
      if (err instanceof RegistryError) throw err;
      throw new RegistryError(
        `the registry at ${this.baseUrl} stopped answering halfway: ${networkWords(err, signal, this.#timeoutMs)}`,
        { hint: 'try again', cause: err },
      );
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  #tooLarge(): RegistryError {
    return new RegistryError(
      `the registry at ${this.baseUrl} answered more than ${Math.round(this.#maxBytes / 1024 / 1024)} MiB: that is not a server list Switchboard will read`,
      { hint: 'check the registry address in Settings' },
    );
  }
}

/** "timed out after 10 s", "connection refused", "no such host (DNS)", … */
function networkWords(err: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  const cause = (err as { cause?: { code?: string } } | undefined)?.cause;
  const code = cause?.code ?? (err as { code?: string } | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'its host name does not resolve (offline, or a wrong address)';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'the connection timed out';
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `its TLS certificate is not valid (${code})`;
    default:
      return code ? code : err instanceof Error ? displayText(err.message.slice(0, 120)) : 'unknown error';
  }
}
