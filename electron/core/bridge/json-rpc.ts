/** The JSON-RPC 2.0 shapes the bridge relays, checked by hand on the hot path (no schema parse). */

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export type JsonRpcIncoming =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; id: JsonRpcId | null; reason: string };

export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** the server behind the endpoint is not running (pending approval, stopped, crashed, …) */
  ServerUnavailable: -32003,
  RequestTimeout: -32001,
  /** the editor cancelled the request or went away (the code LSP uses; MCP names none) */
  RequestCancelled: -32800,
} as const;

export function classify(value: unknown): JsonRpcIncoming {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'invalid', id: null, reason: 'a JSON-RPC message must be an object' };
  }
  const msg = value as Record<string, unknown>;
  const id = msg.id;
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if (msg.jsonrpc !== '2.0')
    return { kind: 'invalid', id: validId ? id : null, reason: 'jsonrpc must be "2.0"' };
  if (msg.params !== undefined && (typeof msg.params !== 'object' || msg.params === null)) {
    return { kind: 'invalid', id: validId ? id : null, reason: 'params must be an object' };
  }
  if (typeof msg.method === 'string') {
    if (id === undefined) return { kind: 'notification', message: msg as unknown as JsonRpcNotification };
    if (!validId) return { kind: 'invalid', id: null, reason: 'id must be a string or a number' };
    return { kind: 'request', message: msg as unknown as JsonRpcRequest };
  }
  if ('result' in msg || 'error' in msg) {
    return { kind: 'response', message: msg as unknown as JsonRpcResponse };
  }
  return { kind: 'invalid', id: validId ? id : null, reason: 'not a request, notification or response' };
}

export function errorResponse(
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: unknown,
): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

export function resultResponse(id: JsonRpcId, result: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, result };
}
