import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ProcessTransport } from '../../../electron/core/supervisor/process-transport.ts';

function setup() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const t = new ProcessTransport(stdin, stdout);
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closed = 0;
  t.onmessage = (m) => messages.push(m);
  t.onerror = (e) => errors.push(e);
  t.onclose = () => closed++;
  return { stdin, stdout, t, messages, errors, closed: () => closed };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ProcessTransport', () => {
  it('reads newline-delimited JSON-RPC even when split across chunks', async () => {
    const { stdout, t, messages } = setup();
    await t.start();
    stdout.write('{"jsonrpc":"2.0","id":1,"res');
    stdout.write('ult":{}}\n{"jsonrpc":"2.0","method":"notifications/x"}\n');
    await tick();
    expect(messages).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', method: 'notifications/x' },
    ]);
  });

  it('reports a non-JSON line and keeps reading', async () => {
    const { stdout, t, messages, errors } = setup();
    await t.start();
    stdout.write('Server starting on stdout, oops\n{"jsonrpc":"2.0","id":2,"result":{}}\n');
    await tick();
    expect(errors).toHaveLength(1);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('writes serialized messages to stdin', async () => {
    const { stdin, t } = setup();
    await t.start();
    await t.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    expect(stdin.read()?.toString()).toBe('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
  });

  it('closes once when stdout ends, and refuses to send afterwards', async () => {
    const { stdout, t, closed } = setup();
    await t.start();
    stdout.end();
    await tick();
    await t.close();
    expect(closed()).toBe(1);
    await expect(t.send({ jsonrpc: '2.0', id: 4, method: 'ping' })).rejects.toThrow('Not connected');
  });
});
