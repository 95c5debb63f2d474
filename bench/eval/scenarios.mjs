// The evaluation's scenarios: a fault each (or none, for the quiet ones), the load that carries it,
// the pattern an agent should be told and the cause it should be given. `fault` returns steps the
// runner advances every 2 s while it watches.
const ms = (seconds) => seconds * 1000;

function* steps(...timed) {
  const start = Date.now();
  for (const [afterSeconds, action] of timed) {
    while (Date.now() - start < ms(afterSeconds)) yield;
    action();
  }
}

export const SCENARIOS = [
  {
    name: 'slow-release',
    description: 'a release makes GET /orders/{id} four times slower',
    load: { kind: 'open', rate: 100 },
    warmSeconds: 40,
    watchSeconds: 120,
    expect: 'latency_degradation',
    cause: /release 2\.6\.0/,
    fault: ({ post }) => steps([0, () => post({ change: { kind: 'deployment', description: 'release 2.6.0 (new pricing path)' }, latencyFactor: 4 })]),
  },
  {
    name: 'error-spike',
    description: 'a feature flag makes 30 % of orders fail',
    load: { kind: 'open', rate: 100 },
    warmSeconds: 40,
    watchSeconds: 120,
    expect: 'error_rate_spike',
    cause: /bulk_discounts/,
    fault: ({ post }) => steps([0, () => post({ change: { kind: 'config_change', description: 'feature flag bulk_discounts enabled' }, errorRate: 0.3 })]),
  },
  {
    name: 'cascade',
    description: 'inventory fails, then pricing',
    load: { kind: 'open', rate: 100 },
    warmSeconds: 40,
    watchSeconds: 120,
    expect: 'cascade_failure',
    cause: /inventory-service/,
    fault: ({ post }) => steps([0, () => post({ inventory: 'fail' })], [5, () => post({ pricing: 'fail' })]),
  },
  {
    name: 'buffer-leak',
    description: 'Buffers leak at 1.5 MB/s and latency rises with them',
    load: { kind: 'open', rate: 50 },
    warmSeconds: 40,
    watchSeconds: 180,
    expect: 'memory_leak',
    fault: ({ post }) => steps([0, () => post({ leakBytesPerSecond: 1.5 * 1024 * 1024 })]),
  },
  {
    name: 'cold-start',
    description: 'every request of the first 10 s takes 250 ms more (the consumer SLA is 200 ms)',
    env: { COLD_START_MS: '250', COLD_START_SECONDS: '10' },
    load: { kind: 'open', rate: 50 },
    warmSeconds: 0,
    watchSeconds: 60,
    expect: 'cold_start',
    cause: /deployment|start/,
  },
  {
    name: 'retry-flood',
    description: 'inventory is down for 40 s; when it recovers, clients retry at 6x the rate for 30 s',
    load: { kind: 'open', rate: 100 },
    warmSeconds: 40,
    watchSeconds: 150,
    expect: 'thundering_herd',
    cause: /inventory-service/,
    fault: ({ post, setRate }) =>
      steps(
        [0, () => post({ inventory: 'fail' })],
        [
          40,
          () => {
            post({ inventory: 'ok' });
            setRate(600);
          },
        ],
        [70, () => setRate(100)],
      ),
  },
  {
    name: 'early-failure',
    description: "quiet: one of a fresh process's first requests fails",
    env: { FAIL_FIRST: '1' },
    load: { kind: 'open', rate: 20 },
    warmSeconds: 60,
    watchSeconds: 0,
  },
  {
    name: 'fresh-under-load',
    description: 'quiet: a fresh process under 8 closed-loop clients at about 300 req/s for 60 s',
    load: { kind: 'closed', clients: 8, thinkMs: 22 },
    warmSeconds: 60,
    watchSeconds: 0,
  },
];
