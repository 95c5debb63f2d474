// An OTLP/HTTP endpoint that accepts and discards everything, so exporting costs the same for
// every mode of the benchmark. Prints "LISTENING <port>".
import http from 'node:http';

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
server.listen(0, '127.0.0.1', () => console.log(`LISTENING ${server.address().port}`));
process.on('SIGTERM', () => server.close());
