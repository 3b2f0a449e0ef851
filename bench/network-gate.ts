// What the sandbox's network gate costs per connection it decides (issue 32 item 3): judging every
// address a name resolves to, with this computer's interface addresses read afresh each time.
//
//   node bench/network-gate.ts [--runs N]
//
// The lookup is answered by a table (no DNS query leaves the machine): what is measured is the
// gate's own work, in the proxy's process, next to a connection's round trips to the internet.
import { networkInterfaces } from 'node:os';
import { parseArgs } from 'node:util';
import { NetworkGate } from '../electron/core/sandbox/network-gate.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20000' } } });
const runs = Number(values.runs);
const gate = new NetworkGate({ kind: 'internet' }, async () => ['140.82.112.5', '2606:50c0:8000::154']);

async function microseconds(what: () => unknown): Promise<string> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) await what();
  return (Number(process.hrtime.bigint() - start) / runs / 1000).toFixed(1);
}

const name = await microseconds(() => gate.decide('api.github.com', 443));
const refused = await microseconds(() => gate.decide('::ffff:7f00:1', 443));
const interfaces = await microseconds(() => networkInterfaces());
console.log(`gate, a name with two public addresses: ${name} µs per decision`);
console.log(`gate, an IPv4-mapped loopback address (refused): ${refused} µs per decision`);
console.log(`of which os.networkInterfaces(): ${interfaces} µs`);
