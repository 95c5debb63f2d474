// An OTLP/HTTP endpoint that accepts and discards everything, so exporting costs the same for
// every mode of the benchmark. Prints "LISTENING <port>". With --count-spans it also counts the
// spans of the protobuf trace exports it receives, and answers GET /spans with the count.
import http from 'node:http';

const counting = process.argv.includes('--count-spans');
let spans = 0;

function varint(bytes, pos) {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = bytes[pos++];
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, pos];
  }
}

/** The [start, end) of each length-delimited field numbered `field` in bytes[start, end). */
function* fields(bytes, start, end, field) {
  for (let pos = start; pos < end; ) {
    const [key, next] = varint(bytes, pos);
    pos = next;
    const wireType = key & 7;
    if (wireType === 0) pos = varint(bytes, pos)[1];
    else if (wireType === 1) pos += 8;
    else if (wireType === 5) pos += 4;
    else if (wireType === 2) {
      const [length, at] = varint(bytes, pos);
      if (key >>> 3 === field) yield [at, at + length];
      pos = at + length;
    } else throw new Error(`protobuf wire type ${wireType}`);
  }
}

/** ExportTraceServiceRequest: resource_spans (1), each with scope_spans (2), each with spans (2). */
function countSpans(bytes) {
  let count = 0;
  for (const [resourceStart, resourceEnd] of fields(bytes, 0, bytes.length, 1)) {
    for (const [scopeStart, scopeEnd] of fields(bytes, resourceStart, resourceEnd, 2)) {
      for (const _span of fields(bytes, scopeStart, scopeEnd, 2)) count++;
    }
  }
  return count;
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/spans') return res.end(String(spans));
  const chunks = [];
  if (counting && req.url === '/v1/traces') req.on('data', (chunk) => chunks.push(chunk));
  else req.resume();
  req.on('end', () => {
    if (chunks.length > 0) spans += countSpans(Buffer.concat(chunks));
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
server.listen(0, '127.0.0.1', () => console.log(`LISTENING ${server.address().port}`));
process.on('SIGTERM', () => server.close());
