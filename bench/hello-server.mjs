// The benchmark's fixture server: plain node:http, one JSON route, no router. Prints "LISTENING <port>".
import http from 'node:http';

const server = http.createServer((req, res) => {
  if (req.url.startsWith('/orders/')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: req.url.slice(8), status: 'shipped' }));
  } else res.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => console.log(`LISTENING ${server.address().port}`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close());
