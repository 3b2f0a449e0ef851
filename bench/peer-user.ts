// What the bridge's check of a connection's user costs (electron/core/bridge/peer-user.ts, Linux): one
// lookup in /proc/net/tcp{,6} per accepted connection, none per request after it. Real connections on
// 127.0.0.1; measured with the table as the machine has it, then with 1,000 more idle connections open
// (a busy machine: the table grows, and reading it costs more). Prints wall and CPU µs per lookup.
//   node_modules/.bin/node bench/peer-user.ts [--connections 300]
import { readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { procPeerUsers } from '../electron/core/bridge/peer-user.ts';

const { values } = parseArgs({ options: { connections: { type: 'string', default: '300' } } });
const N = Number(values.connections);
const users = procPeerUsers();
const server = createServer();
const accepted: Socket[] = [];
server.on('connection', (s) => accepted.push(s));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;
const clients: Socket[] = [];

async function open(): Promise<Socket> {
  const waiting = new Promise<Socket>((resolve) => server.once('connection', resolve));
  const client = connect({ host: '127.0.0.1', port });
  clients.push(client);
  await new Promise((resolve) => client.once('connect', resolve));
  return waiting;
}

async function measure(label: string): Promise<void> {
  const lines = readFileSync('/proc/net/tcp', 'utf8').split('\n').length - 2;
  const wall: number[] = [];
  let cpu = 0;
  for (let i = 0; i < N; i++) {
    const socket = await open();
    const before = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const lookup = await users.uidOf(socket);
    wall.push(Number(process.hrtime.bigint() - t0) / 1_000);
    const used = process.cpuUsage(before);
    cpu += used.user + used.system;
    if (!('uid' in lookup)) throw new Error(`lookup failed: ${lookup.unknown}`);
    socket.destroy();
  }
  wall.sort((a, b) => a - b);
  const at = (q: number) => wall[Math.min(wall.length - 1, Math.floor(q * wall.length))]?.toFixed(0);
  console.log(
    `${label} (/proc/net/tcp ≈ ${lines} sockets): per connection ${at(0.5)} µs p50, ${at(0.99)} µs p99 wall; ${(cpu / N).toFixed(0)} µs CPU`,
  );
}

await measure('as the machine is');
for (let i = 0; i < 1_000; i++) await open();
await measure('with 1,000 more idle connections');
for (const s of [...clients, ...accepted]) s.destroy();
server.close();
