import { PassThrough, Writable } from 'node:stream';
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

  it('sends what was sent in one turn of the event loop in one write, in order', async () => {
    const writes: string[] = [];
    const stdin = new Writable({
      writev(chunks, done) {
        writes.push(chunks.map((c) => String(c.chunk)).join(''));
        done();
      },
      write(chunk: Buffer, _encoding, done) {
        writes.push(String(chunk));
        done();
      },
    });
    const t = new ProcessTransport(stdin, new PassThrough());
    await t.start();
    const sent = [1, 2, 3].map((id) => t.send({ jsonrpc: '2.0', id, method: 'ping' }));
    expect(writes).toEqual([]); // not yet: the rest of this turn may send more
    await Promise.all(sent);
    expect(writes).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n',
    ]);
    await t.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
    expect(writes).toHaveLength(2);
  });

  it('reports lines that are JSON but not JSON-RPC, and passes unknown members through', async () => {
    const { stdout, t, messages, errors } = setup();
    await t.start();
    stdout.write(
      [
        '{"jsonrpc":"1.0","id":1,"result":{}}',
        '{"jsonrpc":"2.0","id":1.5,"result":{}}',
        '{"jsonrpc":"2.0","id":2,"result":[]}',
        '{"jsonrpc":"2.0","id":3,"error":{"code":"x","message":"m"}}',
        '{"jsonrpc":"2.0","method":"notifications/x","params":7}',
        '[{"jsonrpc":"2.0","id":4,"result":{}}]',
        '',
        '{"jsonrpc":"2.0","id":"a","result":{"x":1},"extra":true}\r',
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":{"k":"v"}}}',
      ].join('\n') + '\n',
    );
    await tick();
    expect(errors.map((e) => e.message.split(':')[0])).toEqual([
      'not a JSON-RPC message (jsonrpc is not "2.0")',
      'not a JSON-RPC message (id is not a string or an integer)',
      'not a JSON-RPC message (result is not an object)',
      'not a JSON-RPC message (error.code is not an integer)',
      'not a JSON-RPC message (params is not an object)',
      'not a JSON-RPC message (not an object)',
    ]);
    expect(messages).toEqual([
      { jsonrpc: '2.0', id: 'a', result: { x: 1 }, extra: true },
      { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error', data: { k: 'v' } } },
    ]);
  });

  it('gives up on a line longer than the limit', async () => {
    const { stdout, t, messages, errors, closed } = setup();
    await t.start();
    const big = Buffer.alloc(1024 * 1024, 'x');
    for (let i = 0; i <= 10; i++) stdout.write(big);
    await tick();
    expect(errors.map((e) => e.message)).toEqual(['a line on stdout is longer than 10485760 bytes']);
    expect(closed()).toBe(1);
    expect(messages).toEqual([]);
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
