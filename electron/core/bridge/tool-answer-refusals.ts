import type { SandboxRun } from '../supervisor/types.ts';
import type { JsonRpcResponse } from './json-rpc.ts';

/** What the sandbox's proxy answers a connection it refused (network-proxy.ts). */
const PROXY_REFUSAL = 'Switchboard: sandbox refused connecting to';
/** How much of an answer's text is looked at (the rest of a long answer is not). */
const MAX_TEXT = 16_384;

/**
 * A sandboxed server's tool answer on its way back to the editor. A connection the sandbox refused
 * is an error to the model, though the server passed the proxy's 403 on as an answer: the result is
 * marked isError, its text kept. And what the answer shows the sandbox refused (a hidden path) is
 * read after the answer has gone, so the server's status names it with its grant. Answers of servers
 * that run unsandboxed are not looked at.
 */
export function checkToolAnswer(
  sandbox: SandboxRun | null | undefined,
  args: unknown,
  answer: JsonRpcResponse,
): JsonRpcResponse {
  if (!sandbox || answer.result === undefined) return answer;
  const result = answer.result as { content?: unknown; isError?: unknown };
  const text = textOf(result.content);
  if (!text) return answer;
  const failed = result.isError === true;
  setImmediate(() => sandbox.answered(text, args, failed));
  if (failed || !text.includes(PROXY_REFUSAL)) return answer;
  return { ...answer, result: { ...result, isError: true } };
}

/** The text parts of a tool result's content, joined, up to MAX_TEXT characters. */
function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (text.length >= MAX_TEXT) break;
    const value = (part as { type?: unknown; text?: unknown } | null)?.text;
    if (typeof value === 'string') text += (text ? '\n' : '') + value.slice(0, MAX_TEXT - text.length);
  }
  return text;
}
