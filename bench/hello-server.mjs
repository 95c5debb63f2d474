// The benchmark's fixture server: plain node:http, one JSON route, no router. Prints
// "LISTENING <port>". GET /__stats reports the process's CPU time and request count, so the
// benchmark can compute CPU per request over its measured window.
import http from 'node:http';

let requests = 0;
const server = http.createServer((req, res) => {
  if (req.url === '/__stats') {
    const { user, system } = process.cpuUsage();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ cpuMicros: user + system, requests }));
    return;
  }
  requests++;
  if (req.url.startsWith('/orders/')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: req.url.slice(8), status: 'shipped' }));
  } else res.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => console.log(`LISTENING ${server.address().port}`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close());
