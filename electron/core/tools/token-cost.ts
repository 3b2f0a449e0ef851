import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * Roughly how many tokens a tool costs a model on every turn: what clients send of it (name, title,
 * description, input schema) as JSON, in UTF-8 bytes divided by 4, rounded up. An estimate, the same
 * for every model: bench/tools.ts compares it with a real tokenizer (o200k) on real servers' tools.
 */
export function toolTokens(tool: Pick<Tool, 'name' | 'title' | 'description' | 'inputSchema'>): number {
  const sent = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
  };
  return Math.ceil(Buffer.byteLength(JSON.stringify(sent), 'utf8') / 4);
}
