import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  newTagKey,
  relatedStreamsFetch,
  takeRelatedTag,
} from '../../../electron/core/supervisor/related-streams.ts';

// Which call a server's message belongs to, as the upstream fetch marks it: a call's POST stream,
// and a GET that resumes that stream from its last event id (SEP-1699 polling), are the call's; the
// standalone GET stream and a stream resumed after its answer came are no call's. The server side is
// a fetch answering with real event-stream Responses in the shape the SDK's server writes.

const ELICIT = { jsonrpc: '2.0', id: 7, method: 'elicitation/create', params: { message: 'Who?' } };

/** A fetch that answers each request with the next of `streams` as an event stream. */
function serverSends(streams: string[]): { fetch: FetchLike; asked: RequestInit[] } {
  const asked: RequestInit[] = [];
  const fetch: FetchLike = (_url, init) => {
    asked.push(init ?? {});
    const body = streams.shift() ?? '';
    return Promise.resolve(new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
  };
  return { fetch, asked };
}

const event = (id: string, message?: unknown): string =>
  `id: ${id}\ndata: ${message === undefined ? '' : JSON.stringify(message)}\n\n`;

/** The call each server request on the answer's stream is marked as belonging to. */
async function relatedOf(response: Response, tagKey: string): Promise<unknown[]> {
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as JSONRPCMessage)
    .filter((m) => 'method' in m)
    .map((m) => takeRelatedTag(m, tagKey));
}

const post = (id: string) => ({
  method: 'POST',
  body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ask' } }),
});
const resume = (lastEventId?: string) => ({
  method: 'GET',
  headers: new Headers(lastEventId ? { 'last-event-id': lastEventId } : {}),
});

describe('relatedStreamsFetch', () => {
  it("a GET resuming a call's stream that had no answer yet is that call's", async () => {
    const tagKey = newTagKey();
    const { fetch } = serverSends([event('s1_1'), event('s1_2', ELICIT)]);
    const relayed = relatedStreamsFetch(tagKey, fetch);
    expect(await relatedOf(await relayed('u', post('sb:1')), tagKey)).toEqual([]); // priming, then let go
    expect(await relatedOf(await relayed('u', resume('s1_1')), tagKey)).toEqual(['sb:1']);
  });

  it('the standalone GET stream and a stream resumed after its answer are no call’s', async () => {
    const tagKey = newTagKey();
    const answer = { jsonrpc: '2.0', id: 'sb:2', result: {} };
    const { fetch } = serverSends([
      event('s2_1') + event('s2_2', answer),
      event('s2_3', ELICIT),
      event('g_1', ELICIT),
    ]);
    const relayed = relatedStreamsFetch(tagKey, fetch);
    await (await relayed('u', post('sb:2'))).text();
    expect(await relatedOf(await relayed('u', resume('s2_1')), tagKey)).toEqual([undefined]);
    expect(await relatedOf(await relayed('u', resume()), tagKey)).toEqual([undefined]);
  });

  it('a stream resumed twice is still the call’s (each resume goes on from the last id seen)', async () => {
    const tagKey = newTagKey();
    const { fetch } = serverSends([event('s3_1'), event('s3_2'), event('s3_3', ELICIT)]);
    const relayed = relatedStreamsFetch(tagKey, fetch);
    await (await relayed('u', post('sb:3'))).text();
    expect(await relatedOf(await relayed('u', resume('s3_1')), tagKey)).toEqual([]);
    expect(await relatedOf(await relayed('u', resume('s3_2')), tagKey)).toEqual(['sb:3']);
  });

  it('another connection’s event ids mean nothing here', async () => {
    const tagKey = newTagKey();
    const first = serverSends([event('s4_1')]);
    await (await relatedStreamsFetch(tagKey, first.fetch)('u', post('sb:4'))).text();
    const second = relatedStreamsFetch(tagKey, serverSends([event('s4_2', ELICIT)]).fetch);
    expect(await relatedOf(await second('u', resume('s4_1')), tagKey)).toEqual([undefined]);
  });
});
