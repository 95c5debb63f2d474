// The demo's downstream dependency, a separate process: the inventory service. /v1/stock is the
// stable API; /v2/stock is its new API, which fails 60 % of calls and answers slowly.
// Prints "LISTENING <port>".
import http from 'node:http';

const server = http.createServer((req, res) => {
  const v2 = req.url.startsWith('/v2/');
  const fail = v2 && Math.random() < 0.6;
  setTimeout(
    () => {
      res.writeHead(fail ? 503 : 200, { 'content-type': 'application/json' }).end(fail ? '{"error":"stock index rebuilding"}' : '{"inStock":true}');
    },
    v2 ? 40 : 1,
  );
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`LISTENING ${server.address().port}`));
// Ends at once on a signal: closing the server alone would wait for the orders service's
// keep-alive connections (up to the 5 s keep-alive timeout).
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
  });
}
