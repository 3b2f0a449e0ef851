import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The last HTTP answer from a remote server that was not a success. */
export interface FailedAnswer {
  method: string;
  status: number;
  statusText: string;
  contentType: string;
}

/**
 * Wraps fetch to remember the remote server's last failed answer, so a failed connection can be
 * explained in one line (status, content type, what to do) instead of with the page it sent, which
 * the SDK puts into its error message whole (a login or 404 page: a dozen lines of HTML per attempt).
 * Only MCP requests count: OAuth discovery and token requests on the same fetch (a 404 for an
 * optional metadata document) say nothing about whether MCP answers.
 */
export function answerRecorder(base: FetchLike = fetch): {
  fetch: FetchLike;
  last(): FailedAnswer | undefined;
} {
  let last: FailedAnswer | undefined;
  return {
    fetch: async (url, init) => {
      const response = await base(url, init);
      if (!response.ok && isMcpRequest(init)) {
        last = {
          method: init?.method ?? 'GET',
          status: response.status,
          statusText: response.statusText,
          contentType: (response.headers.get('content-type') ?? 'no content type').split(';')[0] ?? '',
        };
      }
      return response;
    },
    last: () => last,
  };
}

/** A JSON-RPC POST, or a GET for an event stream (Streamable HTTP's, or HTTP+SSE's endpoint). */
function isMcpRequest(init: RequestInit | undefined): boolean {
  if ((init?.method ?? 'GET') === 'POST')
    return typeof init?.body === 'string' && init.body.includes('"jsonrpc"');
  return (new Headers(init?.headers).get('accept') ?? '').includes('text/event-stream');
}

/** A server that answers like this may speak the older HTTP+SSE transport (spec: backwards compatibility). */
export function mayBeOldTransport(answer: FailedAnswer | undefined): boolean {
  return (
    answer !== undefined &&
    answer.method === 'POST' &&
    answer.status >= 400 &&
    answer.status < 500 &&
    !needsCredentials(answer)
  );
}

export function needsCredentials(answer: FailedAnswer | undefined): boolean {
  return answer?.status === 401 || answer?.status === 403;
}

/** "the server answered 404 Not Found (text/html) to POST: …what to do" */
export function explainAnswer(answer: FailedAnswer): string {
  const said = `the server answered ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''} (${answer.contentType}) to ${answer.method}`;
  if (needsCredentials(answer))
    return `${said}: it needs credentials or a sign-in; give the server the header it expects in servers.json, with the secret as a reference (e.g. "headers": {"Authorization": "Bearer \${secret:NAME}"})`;
  if (answer.status === 404)
    return `${said}: nothing answers MCP at this address; check the server's url (often it ends in /mcp or /sse)`;
  if (answer.status === 405 || answer.status === 400)
    return `${said}: this address does not take MCP requests; check the server's url`;
  if (answer.status >= 500) return `${said}: the server failed; Switchboard tries again`;
  return `${said}; check the server's url and headers`;
}
