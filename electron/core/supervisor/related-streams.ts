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
 *
 * A server may let go of a call's stream before the call is answered (SEP-1699 polling: while it
 * waits for a person or a model); the client then takes the same stream up again with a GET carrying
 * the last event id it saw there (Last-Event-ID), and the rest of the call, its sampling or
 * elicitation request too, comes on that GET. So the last event id of each unanswered POST stream is
 * remembered with its request's id, and a GET resuming from it is marked like the POST was.
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

/** Unanswered streams remembered for a resume at most (one a call; a connection rarely has many). */
const MAX_RESUMABLE = 256;

/**
 * The last event id seen on each stream that belongs to a request and has not carried its answer:
 * a GET with that Last-Event-ID continues that stream, so it belongs to that request too.
 */
class ResumableStreams {
  readonly #byEventId = new Map<string, RequestId>();

  /** The stream's latest event id is now `eventId` (`previous` was its last one). */
  seen(eventId: string, previous: string | undefined, related: RequestId): void {
    if (previous !== undefined) this.#byEventId.delete(previous);
    this.#byEventId.set(eventId, related);
    if (this.#byEventId.size > MAX_RESUMABLE) {
      const oldest = this.#byEventId.keys().next().value;
      if (oldest !== undefined) this.#byEventId.delete(oldest);
    }
  }

  /** The stream brought its answer: nothing resumes it. */
  done(eventId: string | undefined): void {
    if (eventId !== undefined) this.#byEventId.delete(eventId);
  }

  relatedTo(eventId: string | null | undefined): RequestId | undefined {
    return eventId ? this.#byEventId.get(eventId) : undefined;
  }
}

export function relatedStreamsFetch(tagKey: string, base: FetchLike = fetch): FetchLike {
  const resumable = new ResumableStreams();
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body) return response;
    const type = response.headers.get('content-type') ?? '';
    if (!type.toLowerCase().startsWith('text/event-stream')) return response;
    let related: RequestId | undefined;
    let resumedFrom: string | undefined;
    if (init?.method === 'POST') related = requestIdOf(init.body);
    else if (init?.method === 'GET' || init?.method === undefined) {
      resumedFrom = new Headers(init?.headers).get('last-event-id') ?? undefined;
      related = resumable.relatedTo(resumedFrom);
    }
    if (related === undefined) return response;
    return new Response(response.body.pipeThrough(tagStream(tagKey, related, resumable, resumedFrom)), {
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
 * other line (ids, retry, comments, answers, anything unparseable) passes byte for byte. Its event
 * ids are remembered until it carries an answer, for a GET that resumes it (see ResumableStreams).
 */
function tagStream(
  tagKey: string,
  related: RequestId,
  resumable: ResumableStreams,
  resumedFrom: string | undefined,
): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  // a resumed stream's first new id (or its answer) replaces the one it was resumed from
  let lastEventId = resumedFrom;
  let answered = false;
  const noteEventId = (line: string): void => {
    const id = line.slice(line.startsWith('id: ') ? 4 : 3).replace(/\r?\n$/, '');
    if (id === '' || id.includes('\0')) return; // not an event id (the SSE rules)
    if (!answered) resumable.seen(id, lastEventId, related);
    lastEventId = id;
  };
  const onAnswer = (): void => {
    // The client does not resume a stream that brought its answer.
    answered = true;
    resumable.done(lastEventId);
  };
  const rewrite = (text: string): string => {
    let out = '';
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n', start);
      if (end === -1) break;
      const line = text.slice(start, end + 1);
      if (line.startsWith('id:')) noteEventId(line);
      // only a stream with event ids can be resumed: others need not look for their answer
      out += rewriteLine(line, tagKey, related, answered || lastEventId === undefined ? undefined : onAnswer);
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

/** `onAnswer`: told when the line holds an answer (a message with an id and no method). */
function rewriteLine(line: string, tagKey: string, related: RequestId, onAnswer?: () => void): string {
  if (!line.startsWith('data:')) return line;
  const ending = line.endsWith('\r\n') ? '\r\n' : '\n';
  const payload = line.slice(line.startsWith('data: ') ? 6 : 5, line.length - ending.length);
  if (!payload.includes('"method"')) {
    if (onAnswer && payload.includes('"id"')) onAnswer();
    return line; // answers and priming events pass untouched
  }
  let message: unknown;
  try {
    message = JSON.parse(payload);
  } catch {
    return line;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return line;
  if (!('method' in message)) {
    if ('id' in message) onAnswer?.();
    return line;
  }
  markRelated(message as { params?: Record<string, unknown> }, tagKey, related);
  return `data: ${JSON.stringify(message)}${ending}`;
}

/**
 * Marks a parsed server request or notification as belonging to request `related`, the way a POST's
 * stream marks it (UpstreamLink takes the mark off); for transports that read the answers themselves.
 */
export function markRelated(
  target: { params?: Record<string, unknown> },
  tagKey: string,
  related: RequestId,
): void {
  const tag: Tag = { id: related, params: target.params === undefined, meta: false };
  target.params ??= {};
  const meta = target.params._meta;
  if (typeof meta === 'object' && meta !== null) (meta as Record<string, unknown>)[tagKey] = tag;
  else {
    tag.meta = true;
    target.params._meta = { [tagKey]: tag };
  }
}
