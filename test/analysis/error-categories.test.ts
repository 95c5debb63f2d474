/**
 * Error categories: an exception by its type and normalised message with the first stack frame in
 * the app's own code; an error without one by error.type or HTTP status; bounded in categories per
 * operation (the rest `other`), message, type and frame length.
 */
import type { TimedEvent } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { ErrorCategories, MAX_CATEGORIES_PER_OPERATION } from '../../src/analysis/error-categories.js';
import { appFrameOf, MAX_FRAME_CHARS, MAX_MESSAGE_CHARS, MAX_TYPE_CHARS, normalisedMessage } from '../../src/analysis/exception-category.js';

const CWD = '/srv/orders';
const OP = 'PUT /users/{id}';

function exception(type: string | undefined, message: string | undefined, stacktrace?: string): TimedEvent {
  return { name: 'exception', time: [0, 0], attributes: { 'exception.type': type, 'exception.message': message, 'exception.stacktrace': stacktrace }, droppedAttributesCount: 0 };
}

/** A V8 stack as Express runs a handler: the app's frame under svc's and the framework's. */
function expressStack(message: string, appFile = `${CWD}/src/users.service.js`): string {
  return [
    `TypeError: ${message}`,
    `    at UsersService.update (${appFile}:31:40)`,
    `    at ${CWD}/node_modules/express/lib/router/layer.js:95:5`,
    '    at process.processTicksAndRejections (node:internal/process/task_queues:105:5)',
  ].join('\n');
}

describe('normalisedMessage', () => {
  it.each([
    ["Cannot read properties of undefined (reading 'findIndex')", 'Cannot read properties of undefined (reading <str>)'],
    ['User "alice@example.com" not found', 'User <str> not found'],
    ["Can't find order `ord 7`", "Can't find order <str>"],
    ['order 3f2b8c1e-9d4a-4e6f-8b2c-1a2b3c4d5e6f is locked', 'order <uuid> is locked'],
    ['bad pointer 0x7ffe3a and object 507f1f77bcf86cd799439011', 'bad pointer <hex> and object <hex>'],
    ['customer cus_NffrFeUfNV2Hib has no card', 'customer <id> has no card'],
    ['order 42 of user 1337 failed after 2.5 s', 'order <num> of user <num> failed after <num> s'],
    ['GET /users/42/orders returned 503', 'GET /users/<num>/orders returned <num>'],
    ['E11000 duplicate key on email_1, utf8, HTTP2 and x86_64 are kept', 'E11000 duplicate key on email_1, utf8, HTTP2 and x86_64 are kept'],
    ['a message\n  on   two lines', 'a message on two lines'],
  ])('%s -> %s', (message, normalised) => {
    expect(normalisedMessage(message)).toBe(normalised);
  });

  it('keeps at most MAX_MESSAGE_CHARS, read from the start of a long message', () => {
    const normalised = normalisedMessage(`payload rejected: ${'x'.repeat(100_000)}`);
    expect(normalised).toHaveLength(MAX_MESSAGE_CHARS);
    expect(normalised).toMatch(/^payload rejected: x+…$/);
  });
});

describe('appFrameOf', () => {
  it('is the first frame outside node_modules and node: internals, relative to the working directory', () => {
    const stack = [
      'Error: boom',
      `    at Layer.handle [as handle_request] (${CWD}/node_modules/express/lib/router/layer.js:95:5)`,
      '    at node:internal/process/task_queues:105:5',
      '    at new Promise (<anonymous>)',
      `    at async OrdersController.create (file://${CWD}/dist/orders%20controller.mjs:12:7)`,
      `    at main (${CWD}/dist/main.js:3:1)`,
    ].join('\n');
    expect(appFrameOf(stack, CWD)).toBe('async OrdersController.create (dist/orders controller.mjs:12:7)');
  });

  it('keeps an anonymous frame, and a path outside the working directory whole', () => {
    expect(appFrameOf('Error: boom\n    at /opt/lib/handler.js:7:3', CWD)).toBe('/opt/lib/handler.js:7:3');
  });

  it('is undefined when no frame is the app own', () => {
    expect(appFrameOf(`Error: boom\n    at f (${CWD}/node_modules/pg/lib/client.js:1:1)\n    at node:net:10:1`, CWD)).toBeUndefined();
    expect(appFrameOf('Error: no frames at all', CWD)).toBeUndefined();
  });

  it('reads the frames after a message of several lines, and cuts a long frame', () => {
    const long = `${CWD}/src/${'deep/'.repeat(100)}file.js`;
    const frame = appFrameOf(`Error: multi\nline message\n    at handler (${long}:1:2)`, CWD)!;
    expect(frame).toHaveLength(MAX_FRAME_CHARS);
    expect(frame.startsWith('handler (src/deep/deep/')).toBe(true);
  });
});

describe('ErrorCategories', () => {
  it('groups exceptions by type, normalised message and frame, with a count each', () => {
    const categories = new ErrorCategories(10, CWD);
    for (let id = 0; id < 5; id++)
      categories.record(OP, { 'error.type': '500' }, [exception('TypeError', `Cannot read properties of undefined (reading 'findIndex') for user ${id}`, expressStack('…'))]);
    categories.record(OP, {}, [exception('TypeError', "Cannot read properties of undefined (reading 'findIndex') for user 9", expressStack('…', `${CWD}/src/other.js`))]);
    categories.record(OP, { 'http.response.status_code': 503 }, []);
    expect(categories.of(OP)).toEqual([
      { name: 'TypeError: Cannot read properties of undefined (reading <str>) for user <num>', exceptionType: 'TypeError', frame: 'UsersService.update (src/users.service.js:31:40)', count: 5 },
      { name: 'TypeError: Cannot read properties of undefined (reading <str>) for user <num>', exceptionType: 'TypeError', frame: 'UsersService.update (src/other.js:31:40)', count: 1 },
      { name: 'HTTP 503', count: 1 },
    ]);
  });

  it('takes the request exception from another span when the operation span has none, its own first', () => {
    const categories = new ErrorCategories(10, CWD);
    const handlers = exception('RangeError', 'limit 500 exceeded');
    categories.record(OP, { 'http.response.status_code': 500 }, [], handlers);
    categories.record(OP, { 'http.response.status_code': 500 }, [exception('SyntaxError', 'Unexpected token')], handlers);
    expect(categories.of(OP).map((c) => `${c.name} ${c.count}`)).toEqual(['RangeError: limit <num> exceeded 1', 'SyntaxError: Unexpected token 1']);
  });

  it('keeps the status category when the exception event has neither type nor message, and names one with only a message by it', () => {
    const categories = new ErrorCategories(10, CWD);
    categories.record(OP, { 'http.response.status_code': 500 }, [exception(undefined, undefined)]);
    categories.record(OP, {}, [exception(undefined, 'socket closed by peer 10.0.0.7')]);
    categories.record(OP, {}, []);
    expect(categories.of(OP)).toEqual([
      { name: 'HTTP 500', count: 1 },
      { name: 'socket closed by peer <num>', count: 1 },
      { name: 'unknown', count: 1 },
    ]);
  });

  it(`keeps ${MAX_CATEGORIES_PER_OPERATION} categories per operation and counts the rest as other`, () => {
    const categories = new ErrorCategories(10, CWD);
    for (let c = 0; c < MAX_CATEGORIES_PER_OPERATION + 5; c++) categories.record(OP, {}, [exception(`Error${String.fromCharCode(65 + c)}`, 'failed')]);
    categories.record(OP, {}, [exception('ErrorZ', 'failed')]);
    const kept = categories.of(OP);
    expect(kept).toHaveLength(MAX_CATEGORIES_PER_OPERATION + 1);
    expect(kept[0]).toEqual({ name: 'other', count: 6 });
    expect(kept.reduce((sum, c) => sum + c.count, 0)).toBe(MAX_CATEGORIES_PER_OPERATION + 6);
  });

  it('bounds the type and the message of every category', () => {
    const categories = new ErrorCategories(10, CWD);
    categories.record(OP, {}, [exception('E'.repeat(10_000), 'm'.repeat(10_000))]);
    const [category] = categories.of(OP);
    expect(category!.exceptionType).toHaveLength(MAX_TYPE_CHARS);
    expect(category!.name).toHaveLength(MAX_TYPE_CHARS + 2 + MAX_MESSAGE_CHARS);
  });

  it('groups a stream of messages that differ only in ids into one category', () => {
    const categories = new ErrorCategories(10, CWD);
    for (let i = 0; i < 2000; i++) categories.record(OP, {}, [exception('NotFoundError', `order ${crypto.randomUUID()} of customer cus_${String(i).padStart(6, '0')}ab not found`)]);
    expect(categories.of(OP)).toEqual([{ name: 'NotFoundError: order <uuid> of customer <id> not found', exceptionType: 'NotFoundError', count: 2000 }]);
  });
});
