import { describe, expect, it } from 'vitest';
import type { JsonRpcRequest } from '../../../electron/core/bridge/json-rpc.ts';
import {
  checkModern,
  claimedVersion,
  headerClaim,
  modernResponse,
  modernStatus,
  removedMethod,
  withoutEnvelope,
  editorCapabilitiesOf,
} from '../../../electron/core/bridge/modern-era.ts';

// The 2026-07-28 edge checks and shapes on their own; the bridge itself: test/integration/bridge/eras.test.ts.

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const call = (name: string): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: {}, _meta: META },
});
const headers = (name: string) => ({
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': name,
});

describe('2026-07-28 requests at the bridge edge', () => {
  it('tells a 2026 request from a 2025 one by its _meta alone', () => {
    expect(claimedVersion(call('echo'))).toBe('2026-07-28');
    expect(claimedVersion({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeUndefined();
    expect(
      claimedVersion({ jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 1 } } }),
    ).toBe(undefined);
  });

  it('matches Mcp-Name in its base64 form against the tool name it encodes', () => {
    const name = 'résumé_tool';
    const encoded = `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
    expect(checkModern(headers(encoded), call(name))).not.toHaveProperty('status');
    const other = `=?base64?${Buffer.from('delete_all', 'utf8').toString('base64')}?=`;
    expect(checkModern(headers(other), call(name))).toMatchObject({
      status: 400,
      response: { error: { code: -32020 } },
    });
    // a wrapped value that is not base64 of UTF-8 is no name at all
    expect(checkModern(headers('=?base64?!!?='), call(name))).toMatchObject({ status: 400 });
  });

  it('refuses an envelope without client capabilities', () => {
    const request = call('echo');
    request.params = { name: 'echo', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } };
    expect(checkModern(headers('echo'), request)).toMatchObject({
      status: 400,
      response: { error: { code: -32602 } },
    });
  });

  it('takes a request whose MCP-Protocol-Version header says 2026-07-28 as 2026 even without an envelope', () => {
    const bare = { jsonrpc: '2.0' as const, id: 7, method: 'server/discover', params: {} };
    const modern = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' };
    expect(headerClaim(modern, bare)).toBe('2026-07-28');
    // 2025 traffic stays 2025: its own header, a notification, an initialize falling back
    expect(headerClaim({ 'mcp-protocol-version': '2025-11-25' }, bare)).toBeUndefined();
    expect(headerClaim(modern, { jsonrpc: '2.0', method: 'notifications/cancelled' })).toBeUndefined();
    expect(headerClaim(modern, { ...bare, method: 'initialize' })).toBeUndefined();
    // and is refused for the missing envelope (400, -32602), not relayed
    expect(checkModern(modern, bare)).toMatchObject({
      status: 400,
      response: { id: 7, error: { code: -32602 } },
    });
  });

  it('refuses a body revision the header does not name with -32020 before judging the revision', () => {
    const request: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: 302,
      method: 'server/discover',
      params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' } },
    };
    const mismatch = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' };
    expect(checkModern(mismatch, request)).toMatchObject({
      status: 400,
      response: { error: { code: -32020 } },
    });
    const both = { 'mcp-protocol-version': 'v999.0.0', 'mcp-method': 'server/discover' };
    expect(checkModern(both, request)).toMatchObject({
      status: 400,
      response: { error: { code: -32022, data: { requested: 'v999.0.0' } } },
    });
  });

  it('answers methods 2026-07-28 removed, and unknown ones, with 404; a missing client capability with 400', () => {
    for (const method of [
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
    ])
      expect(removedMethod({ jsonrpc: '2.0', id: 5, method })).toMatchObject({
        status: 404,
        response: { id: 5, error: { code: -32601 } },
      });
    expect(removedMethod({ jsonrpc: '2.0', id: 5, method: 'tools/list' })).toBeUndefined();
    const error = (code: number) => ({ jsonrpc: '2.0' as const, id: 1, error: { code, message: 'x' } });
    expect(modernStatus(error(-32601))).toBe(404);
    expect(modernStatus(error(-32021))).toBe(400);
    expect(modernStatus(error(-32602))).toBe(200);
    expect(modernStatus({ jsonrpc: '2.0', id: 1, result: {} })).toBe(200);
  });

  it('relays without the envelope, keeping the rest of _meta', () => {
    // What goes on the wire (JSON): the editor's capabilities ride beside the params under a symbol
    // for a 2026 server's transport, and are never sent.
    const wire = (params: Record<string, unknown> | undefined) =>
      JSON.parse(JSON.stringify(params)) as unknown;
    const capabilities = { elicitation: { form: {} } };
    const envelope = { ...META, 'io.modelcontextprotocol/clientCapabilities': capabilities };
    const relayed = withoutEnvelope({ name: 'echo', _meta: { ...envelope, progressToken: 7 } });
    expect(wire(relayed)).toEqual({ name: 'echo', _meta: { progressToken: 7 } });
    expect(wire(withoutEnvelope({ name: 'echo', _meta: META }))).toEqual({ name: 'echo' });
    expect(editorCapabilitiesOf(relayed)).toEqual(capabilities);
  });

  it('stamps results without touching the object it was given (lists may be cached)', () => {
    const cached = { tools: [] };
    const out = modernResponse({ jsonrpc: '2.0', id: 1, result: cached }, 'tools/list', 30_000);
    expect(out.result).toEqual({ tools: [], resultType: 'complete', ttlMs: 30_000, cacheScope: 'private' });
    expect(cached).toEqual({ tools: [] });
    const error = { jsonrpc: '2.0' as const, id: 1, error: { code: -1, message: 'no' } };
    expect(modernResponse(error, 'tools/list', 0)).toBe(error);
  });
});
