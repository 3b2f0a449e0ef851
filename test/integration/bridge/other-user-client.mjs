// Run as another local user by other-user.test.ts: sends each request it is given to the bridge on
// 127.0.0.1 and prints what came back, as JSON. Node built-ins only: it runs from a copy in a temp
// folder that user can read, with a copy of the project's Node.
import { request } from 'node:http';

const { port, requests } = JSON.parse(process.argv[2]);

/** One request on its own connection; an event stream is read for `streamMs`, then closed. */
function send({ method, path, headers = {}, body, streamMs = 0 }) {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: { host: `127.0.0.1:${port}`, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        const timer = streamMs > 0 ? setTimeout(() => req.destroy(), streamMs) : undefined;
        const done = () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode, headers: res.headers, text });
        };
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.on('error', (err) => resolve({ status: 0, error: err.code ?? err.message }));
    req.end(body);
  });
}

const results = [];
for (const r of requests) results.push(await send(r));
process.stdout.write(JSON.stringify({ uid: process.getuid(), results }));
