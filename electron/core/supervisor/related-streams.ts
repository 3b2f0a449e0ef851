import { randomBytes } from 'node:crypto';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * Over Streamable HTTP a server sends what belongs to one request (its progress, its logs, its
 * sampling or elicitation requests) on that request's POST response stream. The SDK's transport hands
 * every message to one callback without saying which stream it came on, so this fetch wrapper marks
 * each server request and notification in a POST's event stream with the id of the request that POST
 * carried, under `params._meta[<tagKey>]`; UpstreamLink takes the mark off before anyone sees the
 * message. The key is random per connection, so a server cannot forge a mark.
 */
export function newTagKey(): string {
  return `switchboard.dev/related-${randomBytes(8).toString('hex')}`;
}

interface Tag {
  id: RequestId;
  /** the mark created `params` / `params._meta`, so taking it off removes them again */
  params: boolean;
  meta: boolean;
}

export function relatedStreamsFetch(tagKey: string, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (init?.method !== 'POST' || !response.body) return response;
    const type = response.headers.get('content-type') ?? '';
    if (!type.toLowerCase().startsWith('text/event-stream')) return response;
    const related = requestIdOf(init.body);
    if (related === undefined) return response;
    return new Response(response.body.pipeThrough(tagStream(tagKey, related)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Removes the mark from a message and returns the related request id it carried. */
export function takeRelatedTag(message: JSONRPCMessage, tagKey: string): RequestId | undefined {
  if (!('method' in message)) return undefined;
  const params = message.params as Record<string, unknown> | undefined;
  const meta = params?._meta as Record<string, unknown> | undefined;
  const tag = meta?.[tagKey] as Tag | undefined;
  if (!params || !meta || tag === undefined) return undefined;
  Reflect.deleteProperty(meta, tagKey);
  if (tag.meta) delete params._meta;
  if (tag.params) delete (message as { params?: unknown }).params;
  return tag.id;
}

function requestIdOf(body: unknown): RequestId | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    const first: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
    if (typeof first !== 'object' || first === null || !('method' in first) || !('id' in first))
      return undefined;
    const id = first.id;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Rewrites the `data:` lines of an event stream that hold a JSON-RPC request or notification; every
 * other line (ids, retry, comments, answers, anything unparseable) passes byte for byte.
 */
function tagStream(tagKey: string, related: RequestId): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  const rewrite = (text: string): string => {
    let out = '';
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n', start);
      if (end === -1) break;
      out += rewriteLine(text.slice(start, end + 1), tagKey, related);
      start = end + 1;
    }
    pending = text.slice(start);
    return out;
  };
  return new TransformStream({
    transform(chunk, controller) {
      const out = rewrite(pending + decoder.decode(chunk, { stream: true }));
      if (out) controller.enqueue(encoder.encode(out));
    },
    flush(controller) {
      const out = rewrite(pending + decoder.decode());
      const rest = out + pending;
      if (rest) controller.enqueue(encoder.encode(rest));
    },
  });
}

function rewriteLine(line: string, tagKey: string, related: RequestId): string {
  if (!line.startsWith('data:')) return line;
  const ending = line.endsWith('\r\n') ? '\r\n' : '\n';
  const payload = line.slice(line.startsWith('data: ') ? 6 : 5, line.length - ending.length);
  if (!payload.includes('"method"')) return line; // answers and priming events pass untouched
  let message: unknown;
  try {
    message = JSON.parse(payload);
  } catch {
    return line;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message) || !('method' in message))
    return line;
  const target = message as { params?: Record<string, unknown> };
  const tag: Tag = { id: related, params: target.params === undefined, meta: false };
  target.params ??= {};
  const meta = target.params._meta;
  if (typeof meta === 'object' && meta !== null) (meta as Record<string, unknown>)[tagKey] = tag;
  else {
    tag.meta = true;
    target.params._meta = { [tagKey]: tag };
  }
  return `data: ${JSON.stringify(message)}${ending}`;
}
