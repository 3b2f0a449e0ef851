// Run by proxy-gate.test.ts inside a private network namespace where the loopback interface also
// holds 11.22.33.44 and 2a00:1:2::7: "this machine's own address" that is not loopback. Asks the
// sandbox's real proxy (default policy, then a list naming that address) for it, and prints what
// each attempt got as JSON.
import { createServer } from 'node:http';
import { NetworkGate } from '../../../electron/core/sandbox/network-gate.ts';
import { startProxy } from '../../../electron/core/sandbox/network-proxy.ts';
import { askProxy, getThrough, tunnelTo } from '../../helpers/proxy-probe.ts';

let hits = 0;
const server = createServer((_req, res) => {
  hits++;
  res.end('this computer, by its own address\n');
});
await new Promise<void>((r) => server.listen(0, '::', r));
const port = (server.address() as { port: number }).port;
const direct = async (host: string) => {
  const res = await fetch(`http://${host}:${port}/`);
  await res.text();
  return res.status;
};
const seen: Record<string, number> = {};
seen['direct 11.22.33.44'] = await direct('11.22.33.44');
seen['direct [2a00:1:2::7]'] = await direct('[2a00:1:2::7]');
const before = hits;
const internet = await startProxy(
  { port: 0, host: '127.0.0.1' },
  new NetworkGate({ kind: 'internet' }),
  () => {},
);
const proxy = Number(internet.address);
seen['GET http://11.22.33.44'] = (await askProxy(proxy, getThrough(`http://11.22.33.44:${port}/`))).status;
seen['CONNECT 11.22.33.44'] = (await askProxy(proxy, tunnelTo(`11.22.33.44:${port}`))).status;
seen['CONNECT [::ffff:11.22.33.44]'] = (
  await askProxy(proxy, tunnelTo(`[::ffff:11.22.33.44]:${port}`))
).status;
seen['GET http://[2a00:1:2::7]'] = (
  await askProxy(proxy, getThrough(`http://[2a00:1:2::7]:${port}/`))
).status;
seen['CONNECT [2a00:1:2::7]'] = (await askProxy(proxy, tunnelTo(`[2a00:1:2::7]:${port}`))).status;
seen['reached through the default policy'] = hits - before;
const listed = await startProxy(
  { port: 0, host: '127.0.0.1' },
  new NetworkGate({ kind: 'list', entries: [`11.22.33.44:${port}`] }),
  () => {},
);
seen['listed CONNECT 11.22.33.44'] = (
  await askProxy(Number(listed.address), tunnelTo(`11.22.33.44:${port}`))
).status;
await internet.close();
await listed.close();
server.close();
process.stdout.write(JSON.stringify(seen));
