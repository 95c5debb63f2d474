/**
 * The tool server over real HTTP with the official MCP SDK v2 client, in both protocols it serves
 * (2025-11-25 with sessions, 2026-07-28 stateless): catalog, roles and permissions, identity,
 * errors, approvals, sessions, custom tools and the HTTP guards. The SDK v1 client, which speaks
 * 2025-11-25 only, is served too.
 */
import { request } from 'node:http';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ms } from '../../src/mcp/text-layout.js';
import { driveIncident, mcpHarness, PROTOCOLS, type Protocol, TOKENS } from '../support/mcp-harness.js';

let harness: Awaited<ReturnType<typeof mcpHarness>> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const CATALOG = [
  'get_service_health',
  'get_incident_context',
  'list_remediation_actions',
  'execute_remediation',
  'get_recent_agent_actions',
  'get_slo_report',
  'get_executive_summary',
  'get_trend_analysis',
  'get_cross_stack_context',
  'get_playbook',
  'verify_remediation_effect',
  'get_error_analysis',
  'create_session',
  'add_session_entry',
  'get_session',
];

describe.each(PROTOCOLS)('MCP %s', (protocol: Protocol) => {
  describe('catalog', () => {
    it('lists all 15 tools for an admin with descriptions, string-typed schemas and annotations', async () => {
      harness = await mcpHarness('', { protocol });
      const { tools } = await (await harness.connect(TOKENS.lead)).listTools();
      expect(tools.map((t) => t.name)).toEqual(CATALOG);
      for (const tool of tools) {
        expect(tool.description!.length).toBeGreaterThan(40);
        for (const property of Object.values(tool.inputSchema.properties ?? {})) expect((property as { type: string }).type).toBe('string');
        expect(typeof tool.annotations?.readOnlyHint).toBe('boolean');
        expect(typeof tool.annotations?.destructiveHint).toBe('boolean');
      }
      expect(tools.find((t) => t.name === 'execute_remediation')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      expect(tools.find((t) => t.name === 'get_incident_context')!.inputSchema.required).toEqual(['operation_name']);
    });

    it('lists only what the role may call', async () => {
      harness = await mcpHarness('', { protocol });
      const names = (await (await harness.connect(TOKENS.triage)).listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('execute_remediation');
      expect(names).not.toContain('list_remediation_actions');
      expect(names).toContain('create_session');
    });
  });

  describe('errors', () => {
    it('unknown tool: JSON-RPC -32602 naming the tool and the tools the role may call, prefixed once', async () => {
      harness = await mcpHarness('', { protocol });
      const admin = await harness.connect(TOKENS.lead);
      // The server sends the message alone (the v1 client adds its "MCP error <code>: " prefix once, below).
      await expect(admin.callTool({ name: 'drop_database', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: `unknown tool "drop_database"; tools role "admin" may call: ${CATALOG.join(', ')}`,
      });
      const triage = await harness.connect(TOKENS.triage);
      const permitted = (await triage.listTools()).tools.map((t) => t.name);
      await expect(triage.callTool({ name: 'get_service_helth', arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: `unknown tool "get_service_helth"; did you mean "get_service_health"?; tools role "diagnostician" may call: ${permitted.join(', ')}`,
      });
    });

    it('missing and invalid arguments: isError results saying what to send', async () => {
      harness = await mcpHarness('', { protocol });
      const client = await harness.connect(TOKENS.lead);
      const missing = await harness.call(client, 'get_incident_context');
      expect(missing.isError).toBe(true);
      expect(missing.text).toContain('missing required argument for get_incident_context: operation_name');
      const invalid = await harness.call(client, 'get_service_health', { format: 'xml' });
      expect(invalid).toMatchObject({ isError: true, text: expect.stringContaining('must be one of text, json') });
      const unknownOperation = await harness.call(client, 'get_incident_context', { operation_name: 'GET /nope' });
      expect(unknownOperation).toMatchObject({ isError: true, text: expect.stringContaining('unknown operation "GET /nope"') });
    });

    it('takes an operation spelled :id or {id}, and answers in the {id} spelling', async () => {
      harness = await mcpHarness('', { protocol });
      driveIncident(harness);
      const ops = await harness.connect(TOKENS.ops);
      const context = await harness.call(ops, 'get_incident_context', { operation_name: 'GET /orders/:id' });
      expect(context.isError).toBeFalsy();
      expect(context.text).toContain('GET /orders/{id}');
      const escalated = await harness.call(ops, 'execute_remediation', { action_name: 'escalate:GET /orders/:id', reason: 'colon spelling' });
      expect(escalated.isError).toBeFalsy();
      expect(harness.services.audit.recent()[0]).toMatchObject({ action: 'escalate:GET /orders/{id}', outcome: 'success' });
    });

    it('insufficient permission is checked at call time, even for a tool not listed', async () => {
      harness = await mcpHarness('', { protocol });
      const client = await harness.connect(TOKENS.triage);
      const result = await harness.call(client, 'execute_remediation', { action_name: 'escalate:GET /orders/{id}', reason: 'try' });
      expect(result.isError).toBe(true);
      expect(result.text).toContain('insufficient permission: execute_remediation needs REMEDIATE; role "diagnostician"');
      expect(harness.services.audit.recent()).toEqual([]);
    });
  });

  describe('identity', () => {
    it('takes the name from X-Agent-Name and lowers the role with X-Agent-Role or _meta, never raises it', async () => {
      harness = await mcpHarness('', { protocol });
      driveIncident(harness);
      const lowered = await harness.connect(TOKENS.ops, { 'x-agent-name': 'night-shift', 'x-agent-role': 'observer' });
      expect((await lowered.listTools()).tools.map((t) => t.name)).not.toContain('create_session');
      await expect(harness.connect(TOKENS.triage, { 'x-agent-role': 'admin' })).rejects.toThrow(/403|not within the caller's role/);
      const triage = await harness.connect(TOKENS.triage);
      const raised = await harness.call(triage, 'get_service_health', {}, { agentRole: 'admin' });
      expect(raised).toMatchObject({ isError: true, text: expect.stringContaining('can only lower permissions') });

      const incidentId = harness.services.incidents.openIncident('GET /orders/{id}')!.id;
      const session = await harness.call(triage, 'create_session', { incident_id: incidentId });
      const sessionId = (session.structuredContent as { sessionId: string }).sessionId;
      await harness.call(triage, 'add_session_entry', { session_id: sessionId, type: 'OBSERVATION', content: 'half the orders fail' }, { agentName: 'triage-subagent' });
      const shown = await harness.call(lowered, 'get_session', { session_id: sessionId });
      expect(shown.text).toMatch(/OBSERVATION by triage-bot\/triage-subagent \(diagnostician\)\n {2}half the orders fail/);
      expect(shown.text).toContain(`Incident: ${incidentId}`);
    });

    it('shares a session about an incident svc did not open, shown as external in every session view; malformed ids are refused saying what is accepted', async () => {
      harness = await mcpHarness('', { protocol });
      driveIncident(harness);
      const triage = await harness.connect(TOKENS.triage);
      const ops = await harness.connect(TOKENS.ops);
      const created = await harness.call(triage, 'create_session', { incident_id: 'PD-4711' });
      expect(created.isError ?? false, created.text).toBe(false);
      expect(created.text).toContain('Incident: PD-4711 (external: not an incident svc opened)');
      expect(created.structuredContent).toMatchObject({ incidentId: 'PD-4711', incidentSource: 'external' });
      const sessionId = (created.structuredContent as { sessionId: string }).sessionId;
      const joined = await harness.call(ops, 'add_session_entry', { session_id: sessionId, type: 'OBSERVATION', content: 'paged by the edge team' });
      expect(joined.text).toContain(`ENTRY ADDED to ${sessionId} (#1, incident PD-4711 (external: not an incident svc opened))`);
      const shown = await harness.call(ops, 'get_session', { session_id: sessionId });
      expect(shown.text).toContain('Incident: PD-4711 (external: not an incident svc opened)');
      const listed = await harness.call(ops, 'get_session', { session_id: 'SES-none' });
      expect(listed.text).toContain(`${sessionId} (incident PD-4711 (external: not an incident svc opened))`);

      // svc's own ids work as before, and are not marked external.
      const incidentId = harness.services.incidents.openIncident('GET /orders/{id}')!.id;
      const own = await harness.call(triage, 'create_session', { incident_id: incidentId });
      expect(own.text).toMatch(new RegExp(`Incident: +${incidentId} \\(GET /orders/\\{id\\}, `));
      expect(own.structuredContent).toMatchObject({ incidentId, incidentSource: 'svc' });
      expect(own.text).not.toContain('external');

      const accepted = 'accepted: an svc incident id (open incidents: ';
      const rule = 'or an external one of 1 to 64 characters: letters, digits and . _ : # / -, starting with a letter or digit';
      for (const [bad, why] of [
        ['PD 4711', 'it holds a character outside the accepted ones'],
        ['-rm', 'it holds a character outside the accepted ones'],
        ['PD-4711\u202e', 'it holds a character outside the accepted ones'],
        ['INC-20261122-zzzzz-0042', 'it has the form of an svc incident id, and svc holds no incident with it'],
      ]) {
        const refused = await harness.call(triage, 'create_session', { incident_id: bad! });
        expect(refused.isError, bad).toBe(true);
        expect(refused.text).toContain(`: ${why}; ${accepted}${incidentId} (GET /orders/{id})) ${rule}`);
      }
      const tooLong = await harness.call(triage, 'create_session', { incident_id: 'P'.repeat(65) });
      expect(tooLong.isError).toBe(true);
      expect(tooLong.text).toMatch(/incident_id.*64/);
    });

    it('without tokens, loopback callers get the anonymous role (diagnostician by default)', async () => {
      harness = await mcpHarness('', { tokens: false, protocol });
      const anonymous = await harness.connect(undefined, { 'x-agent-name': 'local-cli' });
      const names = (await anonymous.listTools()).tools.map((t) => t.name);
      expect(names).toContain('create_session');
      expect(names).not.toContain('execute_remediation');
      expect((await harness.call(anonymous, 'get_service_health')).text).toMatch(/STATUS: HEALTHY/);
    });

    it('refuses to serve on a non-loopback address without tokens', async () => {
      await expect(mcpHarness('', { tokens: false, host: '0.0.0.0' })).rejects.toThrow(
        /svc.mcp.host is 0.0.0.0, not loopback, and no tokens are configured: refusing to serve tools without authentication/,
      );
    });

    it('refuses requests without a token when tokens are configured, and bad tokens', async () => {
      harness = await mcpHarness('', { protocol });
      await expect(harness.connect(undefined)).rejects.toThrow(/401|bearer token is required/);
      await expect(harness.connect('wrong-token')).rejects.toThrow(/401|unknown bearer token/);
    });
  });

  describe('remediation with approval', () => {
    it('runs an action needing approval only after an approver approved it with their own credential', async () => {
      harness = await mcpHarness('', { approverTokens: true, protocol });
      driveIncident(harness);
      const ops = await harness.connect(TOKENS.ops);
      const action = 'reset_baseline:GET /orders/{id}';
      const listed = await harness.call(ops, 'list_remediation_actions', { operation_name: 'GET /orders/{id}' });
      expect(listed.text).toContain(`${action}  [built-in, NEEDS APPROVAL, destructive]`);

      // Naming a configured approver approves nothing.
      const named = await harness.call(ops, 'execute_remediation', { action_name: action, reason: 'new code path', approved_by: 'alice' });
      expect(named).toMatchObject({ isError: true, text: expect.stringContaining('approved_by names no open approval') });
      const requested = await harness.call(ops, 'execute_remediation', { action_name: action, reason: 'new code path' });
      const approvalId = /Approval request (APR-[0-9a-z]{5}-\d{4}) is open until/.exec(requested.text)?.[1];
      expect(approvalId, requested.text).toBeDefined();
      expect(requested.text).not.toContain('alice');
      expect(harness.engine.rollingBaselines.getSnapshot('GET /orders/{id}')).toBeDefined();

      // The operator cannot approve its own request; an early use is refused.
      expect((await harness.call(ops, 'execute_remediation', { action_name: `approve:${approvalId}`, reason: 'self' })).text).toContain('this credential may not approve');
      const observerView = async () => (await harness!.call(await harness!.connect(TOKENS.watch), 'get_recent_agent_actions')).text;
      expect((await harness.call(ops, 'execute_remediation', { action_name: action, reason: 'new code path', approved_by: approvalId! })).text).toContain('is not approved yet');

      const alice = await harness.connect(TOKENS.alice);
      const pending = await harness.call(alice, 'list_remediation_actions', { operation_name: 'GET /orders/{id}' });
      expect(pending.text).toContain(`approve:${approvalId}  [approval]\n    Approve ${action}, requested by ops-bot because "new code path", open until`);
      expect((await harness.call(ops, 'list_remediation_actions', { operation_name: 'GET /orders/{id}' })).text).not.toContain('approve:');
      const approved = await harness.call(alice, 'execute_remediation', { action_name: `approve:${approvalId}`, reason: 'checked the deploy' });
      expect(approved.isError, approved.text).toBeFalsy();
      const executed = await harness.call(ops, 'execute_remediation', { action_name: action, reason: 'new code path', approved_by: approvalId! });
      expect(executed.isError, executed.text).toBeFalsy();
      expect(harness.engine.rollingBaselines.getSnapshot('GET /orders/{id}')).toBeUndefined();
      // Used once.
      expect((await harness.call(ops, 'execute_remediation', { action_name: action, reason: 'again', approved_by: approvalId! })).text).toContain('approved_by names no open approval');

      // An ADMIN credential approves its own execution.
      const lead = await harness.connect(TOKENS.lead);
      expect((await harness.call(lead, 'execute_remediation', { action_name: action, reason: 'again' })).isError).toBeFalsy();

      const observer = await harness.connect(TOKENS.watch);
      const seenByObserver = (await harness.call(observer, 'get_recent_agent_actions')).text;
      expect(seenByObserver).not.toContain('alice');
      expect(seenByObserver).toMatch(new RegExp(`SUCCESS approve:${approvalId} by an approver; reason: checked the deploy`));
      expect(seenByObserver).toMatch(new RegExp(`SUCCESS ${action.replace(/[/:]/g, '\\$&')} by ops-bot \\(operator\\); reason: new code path; approval: approved \\(${approvalId}\\);`));
      const seenByApprover = (await harness.call(lead, 'get_recent_agent_actions')).text;
      expect(seenByApprover).toContain(`approval: approved (${approvalId} by alice)`);
      expect(seenByApprover).toContain(`SUCCESS approve:${approvalId} by alice (operator)`);
      expect(seenByApprover).toMatch(/by lead \(admin\); reason: again; approval: approved \(own credential\)/);
      expect(seenByApprover).toMatch(/REFUSED approve:.* by ops-bot \(operator\).*this credential may not approve/);
      // A refused approval by an approver is not shown with the approver's name either.
      await harness.call(alice, 'execute_remediation', { action_name: `approve:${approvalId}`, reason: 'late' });
      expect(await observerView()).not.toContain('alice');
    });

    it('expires an approval after svc.mcp.approval-ttl', async () => {
      harness = await mcpHarness('', { approverTokens: true, protocol });
      driveIncident(harness);
      const ops = await harness.connect(TOKENS.ops);
      const action = 'reset_baseline:GET /orders/{id}';
      const approvalId = /(APR-\S+) is open/.exec((await harness.call(ops, 'execute_remediation', { action_name: action, reason: 'r' })).text)![1]!;
      await harness.call(await harness.connect(TOKENS.alice), 'execute_remediation', { action_name: `approve:${approvalId}`, reason: 'ok' });
      harness.clock.advance(15 * 60_000);
      expect((await harness.call(ops, 'execute_remediation', { action_name: action, reason: 'r', approved_by: approvalId })).text).toContain('approved_by names no open approval');
    });
  });

  describe('verification', () => {
    it('asks to wait before the delay, then compares before and after', async () => {
      harness = await mcpHarness('', { protocol });
      driveIncident(harness);
      const ops = await harness.connect(TOKENS.ops);
      const action = 'enable_fallback:GET /orders/{id}';
      expect((await harness.call(ops, 'execute_remediation', { action_name: action, reason: 'serve cached orders' })).isError).toBeFalsy();
      expect(harness.services.remediation.isFallbackEnabled('GET /orders/{id}')).toBe(true);
      const early = await harness.call(ops, 'verify_remediation_effect', { action_name: action });
      expect(early).toMatchObject({ isError: true, text: expect.stringContaining('call again in 30s') });
      for (let i = 0; i < 40; i++) {
        harness.request('/orders/:id', 15);
        harness.clock.advance(1000);
      }
      const verified = await harness.call(ops, 'verify_remediation_effect', { action_name: action });
      expect(verified.text).toMatch(/Effective: +(YES|NO)/);
      expect(verified.structuredContent).toMatchObject({ action, errorRateDelta: expect.any(Number) });
      expect((verified.structuredContent as { errorRateDelta: number }).errorRateDelta).toBeLessThan(0);
      expect(verified.text).toContain('Requests since:');
    });
  });

  describe('verification of a service-wide action', () => {
    it('reports the measured figures of the operations that were failing, before and after, as get_service_health showed them', async () => {
      harness = await mcpHarness('', { protocol });
      harness.clock.advance(120_000);
      for (let i = 0; i < 100; i++) {
        harness.request('/health', 1);
        harness.request('/orders/:id', 40, i % 100 !== 0);
        harness.clock.advance(200);
      }
      harness.services.remediation.registerAction({ name: 'rollback_release', description: 'Roll back to the previous release', handler: () => 'rolled back' });
      const ops = await harness.connect(TOKENS.ops);
      const health = (await harness.call(ops, 'get_service_health', { format: 'json' })).structuredContent as { operations: { name: string; errorRate: number; p50Ms: number }[] };
      const failing = health.operations.find((o) => o.name === 'GET /orders/{id}')!;
      expect(failing.errorRate).toBeCloseTo(0.99, 2);
      expect((await harness.call(ops, 'execute_remediation', { action_name: 'rollback_release', reason: 'bad release' })).isError).toBeFalsy();
      for (let i = 0; i < 40; i++) {
        harness.request('/health', 1);
        harness.request('/orders/:id', 2);
        harness.clock.advance(1000);
      }
      const verified = await harness.call(ops, 'verify_remediation_effect', { action_name: 'rollback_release' });
      expect(verified.text).toMatch(/Operation: +service-wide, measured on the 1 operation failing at the action: GET \/orders\/\{id\}\n/);
      expect(verified.text).toContain(`(p50 ${ms(failing.p50Ms)} -> ${ms(2)})`);
      expect(verified.text).toMatch(/Error rate delta: +-0\.9900 \(0\.9900 -> 0\.0000\)/);
      expect(verified.text).toMatch(/Requests before: +100 in the 5 minutes before the action/);
      expect(verified.text).toMatch(/Requests since: +40\n/);
      expect(verified.structuredContent).toMatchObject({ scope: ['GET /orders/{id}'], requestsBefore: 100, requestsSince: 40 });
      expect((verified.structuredContent as { errorRateDelta: number }).errorRateDelta).toBeCloseTo(-0.99, 4);
    });

    it('says a side had no requests instead of showing figures of 0', async () => {
      harness = await mcpHarness('', { protocol });
      driveIncident(harness);
      const ops = await harness.connect(TOKENS.ops);
      const action = 'enable_fallback:GET /orders/{id}';
      await harness.call(ops, 'execute_remediation', { action_name: action, reason: 'serve cached orders' });
      harness.clock.advance(31_000);
      const verified = await harness.call(ops, 'verify_remediation_effect', { action_name: action });
      expect(verified.text).toMatch(/Latency delta: +not measured \(p50 \S+ -> no requests in the window\)/);
      expect(verified.text).toMatch(/Error rate delta: +not measured \(0\.\d{4} -> no requests in the window\)/);
      expect(verified.text).not.toMatch(/-> 0\.0ms|-> 0\.0000/);
      expect(verified.structuredContent).toMatchObject({ latencyDeltaMs: null, errorRateDelta: null, requestsSince: 0 });
    });
  });

  describe('custom tools', () => {
    it('appear in tools/list, are announced with list_changed, and obey permissions', async () => {
      harness = await mcpHarness('', { protocol });
      let announced = 0;
      const triage = await harness.connect(TOKENS.triage, {}, { onToolsChanged: () => announced++ });
      // 2025: the standalone SSE stream carries server notifications; give it a request to open on.
      // 2026-07-28: the client listens on its subscriptions/listen stream.
      await triage.listTools();
      harness.registry.registerCustom(
        {
          name: 'get_queue_depth',
          description: 'Jobs waiting in the order queue, by priority',
          parameters: { priority: { type: 'string', description: 'high or low', enum: ['high', 'low'] } },
          required: ['priority'],
          permission: 'DIAGNOSE',
          readOnly: true,
        },
        (args) => `${args.priority === 'high' ? 3 : 12} jobs`,
      );
      harness.registry.registerCustom({ name: 'purge_queue', description: 'Drops every queued job (admin only)', permission: 'ADMIN' }, () => 'purged');
      await expect.poll(() => announced).toBeGreaterThan(0);
      const names = (await triage.listTools()).tools.map((t) => t.name);
      expect(names).toContain('get_queue_depth');
      expect(names).not.toContain('purge_queue');
      expect((await harness.call(triage, 'get_queue_depth', { priority: 'high' })).text).toBe('3 jobs');
      expect((await harness.call(triage, 'get_queue_depth', {})).text).toContain('missing required argument for get_queue_depth: priority');
      expect((await harness.call(triage, 'purge_queue')).text).toContain('needs ADMIN');
      expect(() => harness!.registry.registerCustom({ name: 'get_session', description: 'clash' }, () => '')).toThrow(/already registered/);
    });
  });

  describe('HTTP guards', () => {
    it('checks Host and Origin, limits the body, rate-limits per caller', async () => {
      harness = await mcpHarness('', { maxBodyBytes: 4096, rateLimitPerMinute: 5, protocol });
      // A request of the protocol under test: 2026-07-28 requests carry their version in a header and in _meta.
      const modern = protocol === '2026-07-28';
      const listTools = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': protocol, 'io.modelcontextprotocol/clientCapabilities': {} } },
      });
      const post = (headers: Record<string, string>, body = modern ? listTools : '{}') =>
        fetch(harness!.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${TOKENS.lead}`,
            ...(modern && { 'mcp-protocol-version': protocol, 'mcp-method': 'tools/list' }),
            ...headers,
          },
          body,
        });
      // fetch cannot set Host, node:http can: a DNS-rebinding page's requests carry the attacker's name
      const hostStatus = await new Promise<number>((resolve, reject) => {
        const url = new URL(harness!.url);
        request({ host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: { host: 'evil.example', authorization: `Bearer ${TOKENS.lead}` } }, (res) => resolve(res.statusCode!))
          .on('error', reject)
          .end('{}');
      });
      expect(hostStatus).toBe(403);
      expect((await post({ origin: 'https://evil.example' })).status).toBe(403);
      const big = await post({}, JSON.stringify({ padding: 'x'.repeat(10_000) }));
      expect(big.status).toBe(413);
      expect(await big.text()).toContain('exceeds the limit of 4096');
      for (let i = 0; i < 4; i++) expect((await post({})).status).toBe(modern ? 200 : 400); // with the 413 above: the 5 allowed this minute
      const limited = await post({});
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await fetch(harness.url.replace('/mcp', '/other'))).status).toBe(404);
    });

    it('says which port is taken and does not start', async () => {
      harness = await mcpHarness('', { protocol });
      const port = Number(new URL(harness.url).port);
      await expect(mcpHarness('', { port })).rejects.toThrow(`svc.mcp.port ${port} on 127.0.0.1 is taken by another process`);
    });
  });
});

describe('SDK v1 clients (2025-11-25 only)', () => {
  it('list, call, hear about new tools, and read an unknown tool error prefixed once', async () => {
    harness = await mcpHarness();
    const client = new V1Client({ name: 'v1-agent', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(harness.url), { requestInit: { headers: { authorization: `Bearer ${TOKENS.lead}` } } }));
    let announced = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      announced++;
    });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(CATALOG);
    const health = (await client.callTool({ name: 'get_service_health', arguments: { format: 'json' } })) as { structuredContent?: { status?: string } };
    expect(health.structuredContent?.status).toBe('HEALTHY');
    await expect(client.callTool({ name: 'drop_database', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^MCP error -32602: unknown tool "drop_database"; tools role/),
    });
    harness.registry.registerCustom({ name: 'get_queue_depth', description: 'Jobs waiting', readOnly: true }, () => '3 jobs');
    await expect.poll(() => announced).toBeGreaterThan(0);
    await client.close();
  });
});

describe('token configuration', () => {
  it('does not start the tool server when a token entry did not validate (fails closed)', async () => {
    const { loadConfig } = await import('../../src/config/load-config.js');
    const { startToolServer } = await import('../../src/mcp/start-tool-server.js');
    const { ServiceMetadata } = await import('../../src/metadata/service-metadata.js');
    const { newRegistry } = await import('../support/registry.js');
    const { ToolRegistry } = await import('../../src/mcp/tool-registry.js');
    const { tempDir } = await import('../support/temp-dir.js');
    const { engineHarness } = await import('../support/engine-harness.js');
    const { config } = loadConfig({ cwd: tempDir({ 'svc.yml': 'mcp:\n  port: 0\n  tokens:\n    ops-bot: { sha256: the-raw-token, role: operator }\n' }), args: [], env: {} });
    const { incidentResponseFromConfig } = await import('../../src/incidents/incident-response.js');
    const { engine } = engineHarness();
    const metadata = new ServiceMetadata(config, newRegistry());
    await expect(startToolServer(config, engine, metadata, incidentResponseFromConfig(config, engine, metadata), { tools: new ToolRegistry() })).rejects.toThrow(
      /tool server is not started: svc\.mcp\.tokens: svc\.mcp\.tokens\.ops-bot\.sha256.* did not validate/,
    );
  });
});
