// Where a server's CPU time goes: a V8 CPU profile (bench/framework-app.cjs writes one) split into
// the parts of the telemetry stack. Each sample is charged to the innermost frame on its stack
// that belongs to a known part; frames of Node itself (node:internal, native) are charged to the
// part that called them, so the socket write of an export is export I/O and the one of a response
// is the app's. Samples with no known frame on the stack are Node's own work (parsing HTTP,
// timers, the event loop).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SVC_DIST = fileURLToPath(new URL('../dist/', import.meta.url));

export const PARTS = [
  'instrumentation hooks',
  'context propagation',
  'span creation and attributes',
  "svc's processor",
  "svc's analysis",
  'batching and OTLP serialisation',
  'export I/O',
  'app and framework',
  'Node (HTTP parsing, event loop)',
  'garbage collection',
];

const RULES = [
  [/\/dist\/analysis\/|\/dist\/incidents\/|\/dist\/fleet\/|\/dist\/store\//, "svc's analysis"],
  [/\/dist\/telemetry\/(?!.*exporter|counting-exporter|telemetry-loss)/, "svc's processor"],
  [/@opentelemetry\/otlp-exporter-base|@grpc\//, 'export I/O'],
  [
    /@opentelemetry\/(otlp-transformer|exporter-|otlp-grpc-exporter-base)|protobufjs|\/export\/Batch|BatchSpanProcessor|BatchLogRecordProcessor|counting-exporter|telemetry-loss/,
    'batching and OTLP serialisation',
  ],
  [/@opentelemetry\/context-async-hooks|@opentelemetry\/api\/.*context|async_local_storage|internal\/async_hooks|node:async_hooks/, 'context propagation'],
  [/@opentelemetry\/instrumentation|require-in-the-middle|import-in-the-middle|shimmer|@fastify\/otel|\/dist\/telemetry\/young-contexts/, 'instrumentation hooks'],
  [/@opentelemetry\/|\/dist\//, 'span creation and attributes'],
  [/node_modules\/|\/bench\/framework-app/, 'app and framework'],
];

function partOfFrame({ url, functionName }) {
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(idle)' || url === 'node:inspector') return 'not counted';
  if (functionName === '(program)') return 'Node (HTTP parsing, event loop)';
  if (!url || url.startsWith('node:')) return undefined;
  for (const [pattern, part] of RULES) if (pattern.test(url)) return part;
  return url.startsWith(SVC_DIST) ? "svc's processor" : 'app and framework';
}

/**
 * Microseconds of CPU per part (idle time and the profiler's own calls left out) in the profile
 * written to `file`, from `skipMs` after it began (the first moments of a profile run code the
 * profiler has just made V8 recompile).
 */
export function cpuByPart(file, skipMs = 0) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const resolved = new Map();
  const partOf = (id) => {
    if (resolved.has(id)) return resolved.get(id);
    const node = byId.get(id);
    const part = partOfFrame(node.callFrame) ?? (parent.has(id) ? partOf(parent.get(id)) : 'Node (HTTP parsing, event loop)');
    resolved.set(id, part);
    return part;
  };
  const micros = Object.fromEntries(PARTS.map((part) => [part, 0]));
  let elapsed = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    elapsed += delta;
    if (elapsed < skipMs * 1000) return;
    const part = partOf(id);
    if (part !== 'not counted') micros[part] += delta;
  });
  return micros;
}
