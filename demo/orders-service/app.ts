// The demo service: an orders API on node:http with an embedded SQLite database (orders-db), the
// inventory service as a dependency behind an opossum circuit breaker, decorators for its
// topology and svc.yml for its operations and SLO. POST /admin/flags {"new_stock_check": true}
// rolls out a feature: stock is checked per order line on inventory's new /v2 API. It is
// recorded as a change, and a remediation action agents may run (with approval) rolls it back.
// Prints "LISTENING <port>".
import http from 'node:http';
import { DatabaseSync } from 'node:sqlite';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  AgentObservable,
  AgentOperation,
  ConsumptionPattern,
  DeclareConsumer,
  DeclareDependency,
  DependencyCriticality,
  DependencyType,
  isFallbackEnabled,
  recordChange,
  registerRemediationAction,
  ServiceTier,
  watchCircuitBreaker,
} from '@svc/register/api';
import CircuitBreaker from 'opossum';

const inventoryUrl = process.env.INVENTORY_URL ?? 'http://127.0.0.1:47012';
const tracer = trace.getTracer('orders-service');
let newStockCheck = false;

@AgentObservable({ service: 'orders-service', team: 'checkout', tier: ServiceTier.CRITICAL, domain: 'commerce', onCallChannel: '#checkout-oncall' })
@DeclareDependency({
  name: 'inventory-service',
  type: DependencyType.INTERNAL_SERVICE,
  criticality: DependencyCriticality.REQUIRED,
  circuitBreaker: true,
  fallback: 'serve cached stock levels',
  healthEndpoint: `${inventoryUrl}/health`,
})
@DeclareDependency({ name: 'orders-db', type: DependencyType.DATABASE, criticality: DependencyCriticality.REQUIRED, protocol: 'sqlite' })
@DeclareConsumer({ name: 'web-frontend', pattern: ConsumptionPattern.SYNCHRONOUS, slaLatencyMs: 800 })
@DeclareConsumer({ name: 'mobile-app', pattern: ConsumptionPattern.SYNCHRONOUS, slaLatencyMs: 1200 })
class OrdersService {
  private readonly db = new DatabaseSync(':memory:');
  private readonly breaker = new CircuitBreaker((id: string, api: string) => this.fetchStock(id, api), {
    name: 'inventory-breaker',
    timeout: 2000,
    resetTimeout: 3000,
    errorThresholdPercentage: 50,
    volumeThreshold: 10,
  });

  constructor() {
    this.db.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL); CREATE TABLE lines (order_id INTEGER, sku TEXT, qty INTEGER)');
    const order = this.db.prepare('INSERT INTO orders (id, customer, total) VALUES (?, ?, ?)');
    const line = this.db.prepare('INSERT INTO lines (order_id, sku, qty) VALUES (?, ?, ?)');
    for (let id = 1; id <= 500; id++) {
      order.run(id, `customer-${id % 37}`, 10 + (id % 90));
      for (let l = 0; l < 5; l++) line.run(id, `sku-${(id * 7 + l) % 300}`, 1 + (l % 3));
    }
    watchCircuitBreaker(this.breaker, { dependency: 'inventory-service' });
  }

  /** A query on the embedded database, as a client span of orders-db. */
  private query<T>(statement: string, run: () => T): T {
    return tracer.startActiveSpan(
      statement.split(' ').slice(0, 2).join(' '),
      { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'sqlite', 'db.namespace': 'orders-db', 'db.query.text': statement } },
      (span) => {
        try {
          return run();
        } finally {
          span.end();
        }
      },
    );
  }

  private fetchStock(id: string, api: string): Promise<void> {
    return new Promise((resolve, reject) => {
      http
        .get(`${inventoryUrl}/${api}/stock/${id}`, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`inventory-service answered ${res.statusCode}`))));
        })
        .on('error', reject);
    });
  }

  async getOrder(id: number): Promise<unknown> {
    const order = this.query('SELECT orders by id', () => this.db.prepare('SELECT * FROM orders WHERE id = ?').get(id));
    if (!order) return undefined;
    const lines = this.query('SELECT lines by order', () => this.db.prepare('SELECT * FROM lines WHERE order_id = ?').all(id)) as { sku: string }[];
    if (isFallbackEnabled('GET /orders/{id}')) return { ...order, lines, stock: 'cached' };
    if (newStockCheck) {
      // The new feature: stock per line on the v2 API, with a stock-history query per line.
      for (const line of lines) {
        this.query('SELECT stock history', () => this.db.prepare('SELECT COUNT(*) AS n FROM lines a JOIN lines b ON a.sku = b.sku WHERE a.sku = ?').get(line.sku));
        await this.breaker.fire(line.sku, 'v2');
      }
    } else await this.breaker.fire(String(id), 'v1');
    return { ...order, lines, stock: 'live' };
  }

  createOrder(customer: string): number {
    return this.query('INSERT orders', () => Number(this.db.prepare('INSERT INTO orders (customer, total) VALUES (?, 0)').run(customer).lastInsertRowid));
  }

  @AgentOperation({ name: 'PricingService.quote', expectedLatencyP50: '1ms', idempotent: true })
  quote(items: number): number {
    return items * 9.5;
  }
}

const service = new OrdersService();

function setFlag(on: boolean, by: string): void {
  newStockCheck = on;
  recordChange('config_change', `feature flag new_stock_check ${on ? 'enabled' : 'disabled'} by ${by} (stock per order line on inventory /v2)`);
}

registerRemediationAction({
  name: 'rollback_new_stock_check',
  description: 'Roll back the feature flag new_stock_check: stock is checked once per order on the stable inventory /v1 API again',
  requiresApproval: true,
  operations: ['GET /orders/{id}'],
  handler: ({ caller }) => {
    setFlag(false, caller.agentName);
    return 'feature flag new_stock_check disabled; GET /orders/{id} uses inventory /v1 again';
  },
});

const server = http.createServer(async (req, res) => {
  const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  try {
    const order = /^\/orders\/(\d+)$/.exec(req.url ?? '');
    if (req.method === 'GET' && order) {
      const found = await service.getOrder(Number(order[1]));
      return found ? json(200, found) : json(404, { error: 'no such order' });
    }
    if (req.method === 'POST' && req.url === '/orders') {
      const id = service.createOrder('web');
      return json(201, { id, quote: service.quote(3) });
    }
    if (req.method === 'POST' && req.url === '/admin/flags') {
      let body = '';
      for await (const chunk of req) body += chunk;
      setFlag(Boolean(JSON.parse(body || '{}').new_stock_check), 'release-bot');
      return json(200, { new_stock_check: newStockCheck });
    }
    json(404, { error: 'not found' });
  } catch (error) {
    const span = trace.getActiveSpan();
    span?.setStatus({ code: SpanStatusCode.ERROR });
    json(502, { error: (error as Error).message });
  }
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`LISTENING ${(server.address() as { port: number }).port}`));
// On a signal: stop serving and close the open connections (the traffic's keep-alive ones would
// hold the server for up to 5 s); the process then ends as soon as svc's last export is done.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
  });
}
