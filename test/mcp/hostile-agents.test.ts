/**
 * The holes a hostile token holder found, each kept closed: unbounded names, sessions of other
 * credentials, token guessing from many addresses, self-declared names without a token, ids
 * reused across runs, and malformed protocol messages. Real HTTP, official MCP SDK v2 client,
 * in both protocols where the hole is not a 2025 session's.
 */
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_CONNECTIONS } from '../../src/mcp/tool-server.js';
import { ROOT } from '../support/fixture-app.js';
import { driveIncident, mcpHarness, PROTOCOLS, type Protocol, TOKENS } from '../support/mcp-harness.js';

let harness: Awaited<ReturnType<typeof mcpHarness>> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A 2026-07-28 body: the `_meta` envelope added where params (and their `_meta`) are objects. */
function withEnvelope(body: unknown): unknown {
  if (!isObject(body) || (body.params !== undefined && !isObject(body.params))) return body;
  const params = (body.params ?? {}) as Record<string, unknown>;
  if (params._meta !== undefined && !isObject(params._meta)) return body;
  return { ...body, params: { ...params, _meta: { ...ENVELOPE, ...(params._meta as object | undefined) } } };
}

/**
 * A raw JSON-RPC POST as a client outside the SDK would send it: on an open 2025 session (or
 * none), or as a 2026-07-28 request with its headers and `_meta` envelope.
 */
async function post(
  url: string,
  token: string,
  body: unknown,
  options: { sessionId?: string | undefined; protocol?: Protocol } = {},
): Promise<{ status: number; json: { error?: { code: number; message: string }; result?: unknown } }> {
  const modern = options.protocol === '2026-07-28';
  const method = isObject(body) && typeof body.method === 'string' ? body.method : undefined;
  const name = isObject(body) && isObject(body.params) && typeof body.params.name === 'string' ? body.params.name : undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': options.protocol ?? '2025-11-25',
      ...(modern && method && { 'mcp-method': method }),
      ...(modern && name && method === 'tools/call' && { 'mcp-name': name }),
      ...(options.sessionId && { 'mcp-session-id': options.sessionId }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(modern ? withEnvelope(body) : body),
  });
  const text = await response.text();
  const data =
    text.startsWith('event:') || text.startsWith('data:')
      ? text
          .split('\n')
          .find((l) => l.startsWith('data:'))!
          .slice(5)
      : text;
  return { status: response.status, json: JSON.parse(data) };
}

/** The 2025 session of a client, if it has one (2026-07-28 clients have none). */
function sessionOf(client: { transport?: unknown }): string | undefined {
  return (client.transport as StreamableHTTPClientTransport).sessionId;
}

/** Status of a request from a given loopback source address, without keep-alive. */
function statusFrom(url: string, localAddress: string, token: string): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    request(
      {
        host: target.hostname,
        port: target.port,
        path: '/mcp',
        method: 'POST',
        localAddress,
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode!);
      },
    )
      .on('error', reject)
      .end('{}');
  });
}

describe.each(PROTOCOLS)('identity, MCP %s', (protocol: Protocol) => {
  it('refuses a declared agent name or role beyond its bound, from _meta and from headers', async () => {
    harness = await mcpHarness('', { protocol });
    const triage = await harness.connect(TOKENS.triage);
    const huge = 'n'.repeat(1_000_000);
    const byMeta = await harness.call(triage, 'get_service_health', {}, { agentName: huge });
    expect(byMeta).toMatchObject({ isError: true, text: 'the declared agent name is 1000000 characters long; at most 128 are accepted' });
    const incident = harness.services.incidents;
    expect(incident.openIncidents()).toEqual([]);
    await expect(harness.connect(TOKENS.triage, { 'x-agent-name': 'n'.repeat(129) })).rejects.toThrow(/403|at most 128 are accepted/);
    await expect(harness.connect(TOKENS.triage, { 'x-agent-role': 'r'.repeat(65) })).rejects.toThrow(/403|at most 64 are accepted/);
    const withEscape = await harness.call(triage, 'get_service_health', {}, { agentName: 'evil\u001b[2Jbot' });
    expect(withEscape).toMatchObject({ isError: true, text: expect.stringContaining('"evil\\x1b[2Jbot" contains control characters') });
    expect(harness.services.audit.recent()).toEqual([]);
  });

  it("lets _meta lower the headers' role further, never raise it back, and refuses a _meta name or role that is not a string", async () => {
    harness = await mcpHarness('', { protocol });
    const lowered = await harness.connect(TOKENS.ops, { 'x-agent-role': 'observer' });
    const raisedBack = await harness.call(lowered, 'get_service_health', {}, { agentRole: 'operator' });
    expect(raisedBack).toMatchObject({ isError: true, text: 'role "operator" is not within the caller\'s role "observer"; a declared role can only lower permissions' });
    const remediation = await harness.call(lowered, 'list_remediation_actions', { operation_name: 'GET /orders/{id}' }, { agentRole: 'operator' });
    expect(remediation.isError).toBe(true);
    expect((await harness.call(lowered, 'get_service_health', {}, { agentRole: 'observer' })).isError).toBeFalsy();
    expect(await harness.call(lowered, 'get_service_health', {}, { agentRole: {} })).toMatchObject({
      isError: true,
      text: "_meta.agentRole must be a string (a role within the credential's); got object",
    });
    expect(await harness.call(lowered, 'get_service_health', {}, { agentName: 5 })).toMatchObject({ isError: true, text: "_meta.agentName must be a string (the agent's name); got number" });
  });

  it('marks a self-declared name without a token as unverified in sessions and the audit trail', async () => {
    harness = await mcpHarness('', { tokens: false, protocol });
    harness.request('/orders/:id', 20);
    const anonymous = await harness.connect(undefined, { 'x-agent-name': 'sre-lead' });
    driveIncident(harness);
    const incidentId = harness.services.incidents.openIncident('GET /orders/{id}')!.id;
    const created = await harness.call(anonymous, 'create_session', { incident_id: incidentId });
    expect(created.text).toContain('by sre-lead (unverified) (diagnostician)');
    const sessionId = (created.structuredContent as { sessionId: string }).sessionId;
    await harness.call(anonymous, 'add_session_entry', { session_id: sessionId, type: 'OBSERVATION', content: 'looks bad' }, { agentName: 'admin' });
    expect((await harness.call(anonymous, 'get_session', { session_id: sessionId })).text).toContain('OBSERVATION by admin (unverified) (diagnostician)');
  });
});

describe('MCP sessions', () => {
  it('belong to the credential that opened them: another credential gets 404, even to delete', async () => {
    harness = await mcpHarness('', { approverTokens: true });
    const lead = await harness.connect(TOKENS.lead);
    const leadSession = sessionOf(lead);
    const list = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
    expect((await post(harness.url, TOKENS.watch, list, { sessionId: leadSession })).status).toBe(404);
    const deleted = await fetch(harness.url, { method: 'DELETE', headers: { authorization: `Bearer ${TOKENS.watch}`, 'mcp-session-id': leadSession! } });
    expect(deleted.status).toBe(404);
    expect((await lead.listTools()).tools).toHaveLength(15);
    const own = await post(harness.url, TOKENS.lead, list, { sessionId: leadSession });
    expect(own.status).toBe(200);
  });

  it('are capped per credential: one caller opening 101 sessions closes only its own oldest', async () => {
    harness = await mcpHarness('', { approverTokens: true });
    const lead = await harness.connect(TOKENS.lead);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } };
    const flooded: string[] = [];
    for (let i = 0; i < 101; i++) {
      const response = await fetch(harness.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKENS.watch}` },
        body: JSON.stringify(initialize),
      });
      await response.text();
      flooded.push(response.headers.get('mcp-session-id')!);
    }
    expect((await lead.listTools()).tools).toHaveLength(15);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    expect((await post(harness.url, TOKENS.watch, list, { sessionId: flooded[0] })).status).toBe(404);
    expect((await post(harness.url, TOKENS.watch, list, { sessionId: flooded.at(-1) })).status).toBe(200);
    const kept = [];
    for (const id of flooded) if ((await post(harness.url, TOKENS.watch, list, { sessionId: id })).status === 200) kept.push(id);
    expect(kept).toEqual(flooded.slice(-10));
  });

  it('are not opened by 2026-07-28 requests: a flood of stateless calls leaves the 2025 sessions as they were', async () => {
    harness = await mcpHarness('', { approverTokens: true });
    const lead = await harness.connect(TOKENS.lead);
    const stateless = await harness.connect(TOKENS.watch, {}, { protocol: '2026-07-28' });
    expect(sessionOf(stateless)).toBeUndefined();
    for (let i = 0; i < 30; i++) await stateless.listTools({ cursor: undefined });
    for (let i = 0; i < 30; i++) expect((await post(harness.url, TOKENS.watch, { jsonrpc: '2.0', id: i, method: 'tools/list', params: {} }, { protocol: '2026-07-28' })).status).toBe(200);
    expect(harness.server.closedSessions).toBe(0);
    expect((await lead.listTools()).tools).toHaveLength(15);
  });
});

describe('subscriptions/listen streams, MCP 2026-07-28', () => {
  /** Opens a listen stream and resolves once its answer's headers arrived: the stream, or the refusal's status and body. */
  function listen(url: string, token: string): Promise<{ status: number; body: string; close: () => void }> {
    const target = new URL(url);
    const body = JSON.stringify(withEnvelope({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } }));
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: '/mcp',
          method: 'POST',
          agent: false,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'subscriptions/listen',
          },
        },
        (res) => {
          const close = () => req.destroy();
          if (res.headers['content-type']?.startsWith('text/event-stream')) return resolve({ status: res.statusCode!, body: '', close });
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: text, close }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it("are capped per credential, so one caller cannot hold the server's connections; another credential is served", async () => {
    harness = await mcpHarness('', { protocol: '2026-07-28', approverTokens: true });
    const streams = [];
    for (let i = 0; i < 10; i++) streams.push(await listen(harness.url, TOKENS.watch));
    expect(streams.map((s) => s.status)).toEqual(Array(10).fill(200));
    const refused = await listen(harness.url, TOKENS.watch);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error.message).toBe('this credential has 10 subscriptions/listen streams open (svc.mcp.max-sessions-per-credential); close one first');
    const other = await listen(harness.url, TOKENS.lead);
    expect(other.status).toBe(200);
    const lead = await harness.connect(TOKENS.lead);
    expect((await lead.listTools()).tools).toHaveLength(15);
    streams[0]!.close();
    await expect.poll(async () => (await listen(harness!.url, TOKENS.watch)).status).toBe(200);
    for (const stream of [...streams, other]) stream.close();
  });
});

describe('token guessing', () => {
  it('limits failed authentications globally: 50 addresses evaluate about one guess a second, a working agent keeps working', async () => {
    harness = await mcpHarness();
    const addresses = Array.from({ length: 50 }, (_, i) => `127.0.1.${i + 1}`);
    const worker = '127.0.2.1';
    expect(await statusFrom(harness.url, worker, TOKENS.ops)).not.toBe(401);
    const evaluatedPerSecond: number[] = [];
    let refused = 0;
    let workerServed = 0;
    const seconds = 30;
    for (let second = 0; second < seconds; second++) {
      const statuses = await Promise.all(
        addresses.flatMap((address) => [statusFrom(harness!.url, address, `guess-${second}-${address}-a`), statusFrom(harness!.url, address, `guess-${second}-${address}-b`)]),
      );
      evaluatedPerSecond.push(statuses.filter((s) => s === 401).length);
      refused += statuses.filter((s) => s === 429).length;
      if ((await statusFrom(harness.url, worker, TOKENS.ops)) !== 429) workerServed++;
      // A new address with a valid token waits while the global budget is spent.
      if (second === seconds - 1) expect(await statusFrom(harness.url, '127.0.3.1', TOKENS.ops)).toBe(429);
      harness.clock.advance(1000);
    }
    const evaluated = evaluatedPerSecond.reduce((a, b) => a + b, 0);
    const sustained = evaluatedPerSecond.slice(10).reduce((a, b) => a + b, 0) / (seconds - 10);
    console.log(
      `token guessing: ${evaluated} of ${evaluated + refused} guesses from 50 addresses evaluated in ${seconds} s of clock: ${evaluatedPerSecond[0]} in the first second, then ${sustained.toFixed(2)}/s; the authenticated agent was served ${workerServed}/${seconds} times`,
    );
    // The global budget: 60 at once, then one a second.
    expect(evaluatedPerSecond[0]).toBe(60);
    expect(sustained).toBeLessThanOrEqual(1);
    expect(workerServed).toBe(seconds);
  });
});

describe('token guessing by a token holder', () => {
  it('buys one guess per address primed with a valid token, then the global budget holds', async () => {
    harness = await mcpHarness();
    const addresses = Array.from({ length: 50 }, (_, i) => `127.0.4.${i + 1}`);
    for (const address of addresses) expect(await statusFrom(harness.url, address, TOKENS.triage)).not.toBe(401);
    let evaluated = 0;
    const seconds = 60;
    for (let second = 0; second < seconds; second++) {
      const statuses = await Promise.all(addresses.map((address) => statusFrom(harness!.url, address, `guess-${second}-${address}`)));
      evaluated += statuses.filter((s) => s === 401).length;
      harness.clock.advance(1000);
    }
    console.log(`token guessing from 50 primed addresses: ${evaluated} guesses evaluated in ${seconds} s of clock`);
    // One per primed address, the global burst of 60, then one a second.
    expect(evaluated).toBeLessThanOrEqual(50 + 60 + seconds);
  });
});

describe('ids', () => {
  it('differ between two runs of the process', () => {
    const script = `import('${ROOT}dist/incidents/id-sequence.js').then((m) => console.log(new m.IdSequence('SES').next()))`;
    const first = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim();
    const second = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim();
    expect(first).toMatch(/^SES-[0-9a-z]{5}-0001$/);
    expect(second).toMatch(/^SES-[0-9a-z]{5}-0001$/);
    expect(first).not.toBe(second);
  });
});

describe.each(PROTOCOLS)('protocol edges, MCP %s', (protocol: Protocol) => {
  const modern = protocol === '2026-07-28';
  it('answers malformed tools/call params with -32602 in one line', async () => {
    harness = await mcpHarness('', { protocol });
    const lead = await harness.connect(TOKENS.lead);
    const session = sessionOf(lead);
    const cases: [unknown, RegExp][] = [
      [{ name: 'get_service_health', arguments: 'format=json' }, /^tools\/call: params.arguments must be an object of string values; got string$/],
      [{ name: 'get_service_health', arguments: ['json'] }, /^tools\/call: params.arguments must be an object of string values; got an array$/],
      [{ name: 42 }, /^tools\/call: params.name must be the tool's name as a string; got number$/],
      [{ name: 'get_service_health', _meta: 'x' }, /^tools\/call: params._meta must be an object; got string$/],
      ['get_service_health', /^tools\/call: params must be an object; got string$/],
    ];
    for (const [params, message] of cases) {
      const { status, json } = await post(harness.url, TOKENS.lead, { jsonrpc: '2.0', id: 9, method: 'tools/call', params }, { sessionId: session, protocol });
      // A 2025 session answers JSON-RPC errors 200; 2026-07-28 answers a malformed request 400.
      expect(status).toBe(modern ? 400 : 200);
      expect(json.error?.code).toBe(-32602);
      expect(json.error?.message).toMatch(message);
    }
  });

  it('answers an oversized body 413, chunked or not', async () => {
    harness = await mcpHarness('', { protocol });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { padding: 'x'.repeat(2 * 1024 * 1024) } });
    const url = new URL(harness.url);
    for (const chunked of [true, false]) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: '/mcp',
            method: 'POST',
            headers: {
              authorization: `Bearer ${TOKENS.lead}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...(!chunked && { 'content-length': Buffer.byteLength(body) }),
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.on('error', reject);
        if (chunked) for (let i = 0; i < body.length; i += 65_536) req.write(body.slice(i, i + 65_536));
        else req.write(body);
        req.end();
      });
      expect(status, chunked ? 'chunked' : 'content-length').toBe(413);
    }
  });

  it("answers params the SDK's schema refuses with -32602 in one line, for every method it serves", async () => {
    harness = await mcpHarness('', { protocol });
    const lead = await harness.connect(TOKENS.lead);
    const session = sessionOf(lead);
    for (const [method, params] of [
      ['tools/list', { cursor: 5 }],
      ['tools/call', { name: 'get_service_health', _meta: { progressToken: {} } }],
      // 2026-07-28 removed ping: the SDK answers it -32601 there.
      ...(modern ? [] : ([['ping', { _meta: { progressToken: [] } }]] as const)),
      ['x'.repeat(3000), 5],
    ] as const) {
      const { json } = await post(harness.url, TOKENS.lead, { jsonrpc: '2.0', id: 4, method, params }, { sessionId: session, protocol });
      expect(json.error?.code, JSON.stringify(json)).toBe(-32602);
      expect(json.error!.message).not.toContain('\n');
      expect(json.error!.message.length).toBeLessThan(400);
    }
  });

  it('applies a declared name once: _meta names the agent of a call over the headers', async () => {
    harness = await mcpHarness('', { protocol });
    harness.request('/orders/:id', 20);
    const ops = await harness.connect(TOKENS.ops, { 'x-agent-name': 'from-header' });
    await harness.call(ops, 'execute_remediation', { action_name: 'escalate:GET /orders/{id}', reason: 'r' }, { agentName: 'from-meta' });
    await harness.call(ops, 'execute_remediation', { action_name: 'escalate:GET /orders/{id}', reason: 'r' });
    expect(harness.services.audit.recent().map((e) => e.agentName)).toEqual(['ops-bot/from-header', 'ops-bot/from-meta']);
  });

  it("refuses nesting deeper than 64 levels, which overflowed the SDK's schema checks and ended the host", async () => {
    harness = await mcpHarness('', { protocol });
    const lead = await harness.connect(TOKENS.lead);
    const nested = (levels: number) => {
      let value: Record<string, unknown> = {};
      for (let i = 1; i < levels; i++) value = { a: value };
      return value;
    };
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_service_health', arguments: {}, _meta: { deep: nested(3000) } } },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { deep: nested(3000) } } },
      ...(modern
        ? []
        : [{ jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { experimental: nested(3000) }, clientInfo: { name: 'x', version: '1' } } }]),
    ];
    for (const body of requests) {
      const { status, json } = await post(harness.url, TOKENS.lead, body, { sessionId: body.method === 'initialize' ? undefined : sessionOf(lead), protocol });
      expect(status, body.method).toBe(400);
      expect(json.error).toEqual({ code: -32600, message: 'the request nests objects and arrays more than 64 levels deep; MCP messages nest a few' });
    }
    // The message's own object is level 1: params, _meta and 61 levels under it are 64.
    const deepest = { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: { deep: nested(61) } } };
    const { json: answered } = await post(harness.url, TOKENS.lead, deepest, { sessionId: sessionOf(lead), protocol });
    expect(answered.error).toBeUndefined();
    const { json: beyond } = await post(harness.url, TOKENS.lead, { ...deepest, params: { _meta: { deep: nested(62) } } }, { sessionId: sessionOf(lead), protocol });
    expect(beyond.error?.code).toBe(-32600);
    expect((await lead.listTools()).tools).toHaveLength(15);
  });

  it('refuses an initialize or subscriptions/listen over 4 KiB: the server keeps them as long as what they open', async () => {
    harness = await mcpHarness('', { protocol });
    const method = modern ? 'subscriptions/listen' : 'initialize';
    const params = (name: string) =>
      modern
        ? { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/clientInfo': { name, version: '1' } } }
        : { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '1' } };
    const { status, json } = await post(harness.url, TOKENS.lead, { jsonrpc: '2.0', id: 1, method, params: params('n'.repeat(5000)) }, { protocol });
    expect(status).toBe(413);
    expect(json.error?.message).toMatch(new RegExp(`^${method} is kept for as long as what it opens: at most 4096 bytes are accepted, this one has 5\\d{3}$`));
    if (!modern) expect((await post(harness.url, TOKENS.lead, { jsonrpc: '2.0', id: 2, method, params: params('n'.repeat(3000)) })).status).toBe(200);
  });

  it('refuses JSON-RPC batches, which would carry 100 calls through one rate-limited request', async () => {
    harness = await mcpHarness('', { rateLimitPerMinute: 5, protocol });
    const lead = await harness.connect(TOKENS.lead);
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_service_health', arguments: {} } });
    const { status, json } = await post(
      harness.url,
      TOKENS.lead,
      Array.from({ length: 100 }, (_, i) => call(i)),
      { sessionId: sessionOf(lead), protocol },
    );
    expect(status).toBe(400);
    expect(json.error).toEqual({ code: -32600, message: 'JSON-RPC batches are not supported: send one message per request' });
  });

  it("keeps at most MAX_CONNECTIONS connections open, so idle ones cannot take the app's file descriptors", async () => {
    harness = await mcpHarness('', { protocol });
    const url = new URL(harness.url);
    const sockets: Socket[] = [];
    let closed = 0;
    for (let i = 0; i < MAX_CONNECTIONS + 40; i++) {
      const socket = connect(Number(url.port), url.hostname);
      socket.on('close', () => closed++);
      socket.on('error', () => undefined);
      socket.write(`POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\n`);
      sockets.push(socket);
    }
    await expect.poll(() => closed).toBe(40);
    for (const socket of sockets) socket.destroy();
  });

  it('checks argument names as own properties: constructor or toString are unknown arguments', async () => {
    harness = await mcpHarness('', { protocol });
    const lead = await harness.connect(TOKENS.lead);
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const { json } = await post(
        harness.url,
        TOKENS.lead,
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_service_health', arguments: JSON.parse(`{"${name}":"x"}`) } },
        { sessionId: sessionOf(lead), protocol },
      );
      const text = (json.result as { content: { text: string }[]; isError: boolean }).content[0]!.text;
      expect(text).toBe(`unknown argument "${name}" for get_service_health; accepted: format, page`);
    }
  });
});
