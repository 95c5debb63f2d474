/**
 * defineTool and its parameter helpers: definitions are checked once, arguments at every call in
 * a fixed order with messages that name what is accepted, handlers get parsed values, and an
 * AgentError from any layer reaches the agent as an `isError` result.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalError } from '../../src/incidents/approvals.js';
import { UnknownPatternError } from '../../src/incidents/playbooks.js';
import { RemediationRefused } from '../../src/incidents/remediation.js';
import { SessionFullError } from '../../src/incidents/session-store.js';
import { AuthenticationError } from '../../src/mcp/authenticator.js';
import { defineTool } from '../../src/mcp/define-tool.js';
import { ToolError } from '../../src/mcp/tool-definition.js';
import { format, id, oneOf, operationName, page, text } from '../../src/mcp/tool-params.js';
import { customTool } from '../../src/mcp/tool-registry.js';
import { AgentError } from '../../src/shared/agent-error.js';
import { mcpHarness, TOKENS } from '../support/mcp-harness.js';
import { toolHarness } from './tool-harness.js';

let harness: Awaited<ReturnType<typeof mcpHarness>> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('defineTool', () => {
  it('refuses a definition it could not serve, naming what is wrong', () => {
    const handler = () => 'ok';
    expect(() => defineTool({ name: 'bad name', description: 'x', handler })).toThrow('tool name "bad name": use 1-64 letters, digits, "_" or "-"');
    expect(() => defineTool({ name: 'x', description: 'x', permission: 'WRITE' as never, handler })).toThrow('tool x: permission "WRITE" is not one of READ, DIAGNOSE, REMEDIATE, ADMIN');
    expect(() => defineTool({ name: 'x', description: 'x', params: { a: text('A', { maxLength: 0 }) }, handler })).toThrow('tool x: parameter a has maxLength 0; use an integer from 1 to 8192');
    expect(() => customTool({ name: 'x', description: 'x', parameters: { n: { type: 'number', description: 'N' } } }, handler)).toThrow(
      'tool x: parameter n has type "number"; every tool argument is a string',
    );
    expect(() => customTool({ name: 'x', description: 'x', required: ['n'] }, handler)).toThrow('tool x: required parameter n is not among its parameters');
  });

  it('derives listing, required names and annotations from the definition', () => {
    const tool = defineTool({
      name: 'get_queue',
      description: 'One queue',
      permission: 'DIAGNOSE',
      readOnly: true,
      params: { queue: id('Queue id', { required: true }), order: oneOf(['asc', 'desc'], 'Order'), page: page() },
      handler: () => 'ok',
    });
    expect(tool.required).toEqual(['queue']);
    expect(tool.parameters.queue).toEqual({ type: 'string', description: 'Queue id', maxLength: 64 });
    expect(tool.parameters.order!.enum).toEqual(['asc', 'desc']);
    expect(tool.annotations).toEqual({ readOnlyHint: true, destructiveHint: false });
    expect(defineTool({ name: 'act', description: 'Acts', handler: () => 'ok' }).annotations).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(defineTool({ name: 'note', description: 'Notes', destructive: false, handler: () => 'ok' }).annotations).toEqual({ readOnlyHint: false, destructiveHint: false });
  });

  it('checks arguments in order and hands the handler parsed values', async () => {
    const h = toolHarness();
    h.request('/orders/:id', 20);
    let seen: unknown;
    const tool = defineTool({
      name: 'probe',
      description: 'Echoes its arguments',
      params: { operation_name: operationName(), format: format(), page: page(), note: text('Free text', { maxLength: 5 }) },
      handler: (args) => {
        seen = args;
        return 'done';
      },
    });
    expect(await h.callTool(tool, { operation_name: 'GET /orders/:id', page: '2' })).toEqual({ text: 'done' });
    expect(seen).toEqual({ operation_name: 'GET /orders/{id}', format: 'text', page: 2, note: undefined });
    const refused = async (args: Record<string, unknown>) => (await h.toolError(tool, args as Record<string, string>)).message;
    expect(await refused({ other: 'x' })).toBe('unknown argument "other" for probe; accepted: operation_name, format, page, note');
    expect(await refused({ operation_name: 7 })).toBe('argument "operation_name" of probe must be a string (every tool argument is); got number');
    expect(await refused({ operation_name: 'GET /orders/{id}', note: 'too long' })).toBe('argument "note" of probe is 8 characters long; at most 5 are accepted');
    expect(await refused({ operation_name: 'GET /orders/{id}', format: 'xml' })).toBe('argument "format" of probe must be one of text, json; got "xml" (omit it for text)');
    expect(await refused({ format: 'json' })).toBe(
      'missing required argument for probe: operation_name (Operation name as shown by get_service_health, e.g. "GET /orders/{id}"); known operations: GET /orders/{id}',
    );
    expect(await refused({ operation_name: 'GET /order/{id}' })).toBe('unknown operation "GET /order/{id}"; did you mean "GET /orders/{id}"?; known operations: GET /orders/{id}');
    expect(await refused({ operation_name: 'GET /orders/{id}', page: '0' })).toBe('page must be a whole number from 1 (omit it for 1); got "0"');
    // Own properties only: an inherited name is an unknown argument.
    expect(await refused(JSON.parse('{"__proto__": "x"}') as Record<string, unknown>)).toMatch(/^unknown argument "__proto__" for probe/);
  });
});

describe('agent-facing errors', () => {
  it('share one base class', () => {
    for (const error of [new ToolError('x'), new AuthenticationError('x'), new RemediationRefused('x'), new ApprovalError('x'), new SessionFullError('x'), new UnknownPatternError('disk_full')])
      expect(error).toBeInstanceOf(AgentError);
  });

  it('reach the agent as isError results with their message; other failures as failed inside the service', async () => {
    harness = await mcpHarness();
    class QueueClosed extends AgentError {}
    harness.registry.register(
      defineTool({
        name: 'drain_queue',
        description: 'Drains a queue',
        params: { queue: text('Queue name', { required: true }) },
        handler: ({ queue }) => {
          if (queue === 'closed') throw new QueueClosed(`queue "${queue}" is closed; open queues: emails`);
          if (queue === 'broken') throw new Error('disk on fire');
          return `drained ${queue}`;
        },
      }),
    );
    const ops = await harness.connect(TOKENS.ops);
    expect(await harness.call(ops, 'drain_queue', { queue: 'emails' })).toMatchObject({ text: 'drained emails' });
    expect(await harness.call(ops, 'drain_queue', { queue: 'closed' })).toMatchObject({ isError: true, text: 'queue "closed" is closed; open queues: emails' });
    expect(await harness.call(ops, 'drain_queue', { queue: 'broken' })).toMatchObject({ isError: true, text: 'drain_queue failed inside the service: disk on fire' });
  });
});
