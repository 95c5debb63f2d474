// The evaluation's scenarios: a fault each (or none, for the quiet ones), the configuration and
// load that carry it, the pattern an agent should be told, the cause it should be given and, where
// issue 29 sets one, how soon. Fields:
// - config: 'configured' (svc.yml), 'unconfigured' (svc-unconfigured.yml: topology only) or
//   'partial' (svc-partial.yml); env and args (-D arguments) are the app's.
// - load: { kind: 'open', rate } or { kind: 'closed', clients, thinkMs } (1 client, 0 ms: sequential).
// - warmSeconds of normal traffic before the fault; nothing may open then.
// - fault returns steps the runner advances at every poll (1-2 s); a fault given by env instead is
//   there from the first request, its onset the start of the load.
// - expect: the patterns that name the fault (any of them); severity: the least the incident must
//   have (the detection is the first read with both); cause: what the probable cause must say.
// - target: { seconds, rule }: the detection must come within that many seconds of the onset.
// - reads: seconds after the onset at which the tools are read and printed; the fault lasts until
//   the last one, which must still report it as strongly as the detection did. Without reads the
//   runner stops at the detection or after watchSeconds.
// - before: a first run on the same state store, stopped with SIGTERM before this one starts.
// - quiet: { maxDegradedSeconds }: the longest the service may be DEGRADED in a row.
const ms = (seconds) => seconds * 1000;

function* steps(...timed) {
  const start = Date.now();
  for (const [afterSeconds, action] of timed) {
    while (Date.now() - start < ms(afterSeconds)) yield;
    action();
  }
}

const ERROR_PATTERNS = ['error_rate_spike', 'outage'];
/** Issue 29's time-to-detect targets. */
const FAST = { seconds: 10, rule: '5x or +20 points at >= 50 req/s: 10 s' };
const OUTAGE = { seconds: 5, rule: 'outage at >= 20 req/s: CRITICAL in 5 s' };
const PERSIST = [10, 30, 60, 120, 180];

export const SCENARIOS = [
  // The configured service (svc.yml): the scenarios the evaluation began with.
  {
    name: 'slow-release',
    description: 'a release makes GET /orders/{id} four times slower',
    load: { kind: 'open', rate: 100 },
    warmSeconds: 40,
    watchSeconds: 45,
    expect: ['latency_degradation'],
    cause: /release 2\.6\.0/,
    fault: ({ post }) => steps([0, () => post({ change: { kind: 'deployment', description: 'release 2.6.0 (new pricing path)' }, latencyFactor: 4 })]),
  },
  {
    name: 'error-spike',
    description: 'a feature flag makes 30 % of orders fail',
    load: { kind: 'open', rate: 100 },
    warmSeconds: 40,
    watchSeconds: 45,
    expect: ['error_rate_spike'],
    cause: /bulk_discounts/,
    target: FAST,
    fault: ({ post }) => steps([0, () => post({ change: { kind: 'config_change', description: 'feature flag bulk_discounts enabled' }, errorRate: 0.3 })]),
  },
  {
    name: 'cascade',
    description: 'inventory fails, then pricing',
    load: { kind: 'open', rate: 100 },
    warmSeconds: 40,
    watchSeconds: 45,
    expect: ['cascade_failure'],
    cause: /inventory-service/,
    fault: ({ post }) => steps([0, () => post({ inventory: 'fail' })], [5, () => post({ pricing: 'fail' })]),
  },
  {
    name: 'buffer-leak',
    description: 'Buffers leak at 1.5 MB/s and latency rises with them',
    load: { kind: 'open', rate: 50 },
    warmSeconds: 40,
    watchSeconds: 180,
    expect: ['memory_leak'],
    fault: ({ post }) => steps([0, () => post({ leakBytesPerSecond: 1.5 * 1024 * 1024 })]),
  },
  {
    name: 'cold-start',
    description: 'every request of the first 10 s takes 250 ms more (the consumer SLA is 200 ms)',
    env: { COLD_START_MS: '250', COLD_START_SECONDS: '10' },
    load: { kind: 'open', rate: 50 },
    warmSeconds: 0,
    watchSeconds: 60,
    expect: ['cold_start'],
    cause: /deployment|start/,
  },
  {
    name: 'retry-flood',
    description: 'inventory is down for 40 s; when it recovers, clients retry at 6x the rate for 30 s',
    load: { kind: 'open', rate: 100 },
    warmSeconds: 40,
    watchSeconds: 80,
    expect: ['thundering_herd'],
    cause: /inventory-service/,
    target: { seconds: 70, rule: 'named while the flood lasts (40-70 s)' },
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

  // Nothing configured but topology (svc-unconfigured.yml): what a new user gets.
  {
    name: 'bare-slowdown',
    description: 'nothing configured: GET /orders becomes 5x slower at 100 req/s, read for 3 minutes',
    config: 'unconfigured',
    load: { kind: 'open', rate: 100 },
    warmSeconds: 30,
    expect: ['latency_degradation'],
    target: FAST,
    reads: PERSIST,
    fault: ({ post }) => steps([0, () => post({ latencyFactor: 5 })]),
  },
  {
    name: 'bare-outage',
    description: 'nothing configured: every order fails at 50 req/s, read for 3 minutes',
    config: 'unconfigured',
    load: { kind: 'open', rate: 50 },
    warmSeconds: 30,
    expect: ERROR_PATTERNS,
    severity: 'CRITICAL',
    target: OUTAGE,
    reads: [5, ...PERSIST],
    fault: ({ post }) => steps([0, () => post({ errorRate: 1 })]),
  },
  {
    name: 'bare-error-spike',
    description: 'nothing configured: orders fail at 2 %, then 30 %, at 100 req/s, read for 3 minutes',
    config: 'unconfigured',
    env: { ERROR_RATE: '0.02' },
    load: { kind: 'open', rate: 100 },
    warmSeconds: 30,
    expect: ['error_rate_spike'],
    target: FAST,
    reads: PERSIST,
    fault: ({ post }) => steps([0, () => post({ errorRate: 0.3 })]),
  },
  {
    name: 'bare-quiet',
    description: 'nothing configured: steady 100 req/s for 150 s, no fault',
    config: 'unconfigured',
    load: { kind: 'open', rate: 100 },
    warmSeconds: 150,
    watchSeconds: 0,
    quiet: { maxDegradedSeconds: 10 },
  },
  {
    name: 'partial-outage',
    description: 'partial config (p50 3ms, error rate 0.01, no p99): one sequential client, every request failing from the first',
    config: 'partial',
    env: { ERROR_RATE: '1' },
    load: { kind: 'closed', clients: 1, thinkMs: 0 },
    warmSeconds: 0,
    expect: ERROR_PATTERNS,
    severity: 'CRITICAL',
    target: OUTAGE,
    reads: [5, 10, 30, 60],
  },
  {
    name: 'restart-slow-release',
    description: 'nothing configured: 60 s of normal traffic on 2.6.0, SIGTERM, then 2.7.0 on the same store, 5x slower from its first request',
    config: 'unconfigured',
    before: { seconds: 60, args: ['-Dsvc.deployment.version=2.6.0'] },
    args: ['-Dsvc.deployment.version=2.7.0'],
    env: { LATENCY_FACTOR: '5' },
    load: { kind: 'open', rate: 100 },
    warmSeconds: 0,
    expect: ['latency_degradation'],
    cause: /2\.7\.0/,
    // A fresh process makes no latency verdict in its warm-up (patterns.warm-up, 10 s): then as fast as any 5x shift.
    target: { seconds: 20, rule: '5x at >= 50 req/s from the first request: 10 s after the 10 s warm-up' },
    reads: [10, 30, 60, 90],
  },

  // Rates, nothing configured: the 100 req/s point is bare-slowdown.
  {
    name: 'rate-1',
    description: 'nothing configured: 1 req/s, GET /orders becomes 2x slower',
    config: 'unconfigured',
    load: { kind: 'open', rate: 1 },
    warmSeconds: 60,
    expect: ['latency_degradation'],
    target: { seconds: 120, rule: '2x at 1 req/s: 2 min' },
    reads: [30, 60, 120],
    fault: ({ post }) => steps([0, () => post({ latencyFactor: 2 })]),
  },
  {
    name: 'rate-10',
    description: 'nothing configured: 10 req/s, GET /orders becomes 2x slower',
    config: 'unconfigured',
    load: { kind: 'open', rate: 10 },
    warmSeconds: 30,
    expect: ['latency_degradation'],
    target: { seconds: 60, rule: '2x at 10 req/s: 60 s' },
    reads: [10, 30, 60],
    fault: ({ post }) => steps([0, () => post({ latencyFactor: 2 })]),
  },
  {
    name: 'rate-1000',
    description: 'nothing configured: 1000 req/s, GET /orders becomes 5x slower',
    config: 'unconfigured',
    load: { kind: 'open', rate: 1000 },
    warmSeconds: 20,
    expect: ['latency_degradation'],
    target: FAST,
    reads: [5, 10, 30, 60],
    fault: ({ post }) => steps([0, () => post({ latencyFactor: 5 })]),
  },
];

/** The rate series, printed apart: scenario, rate, shift. */
export const RATE_SERIES = [
  ['rate-1', 1, '2x'],
  ['rate-10', 10, '2x'],
  ['bare-slowdown', 100, '5x'],
  ['rate-1000', 1000, '5x'],
];
