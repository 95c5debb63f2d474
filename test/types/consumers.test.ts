/**
 * `@svc/register/api` from consumer projects, as npm installs the package: the packed tarball
 * extracted into a temporary project's node_modules. Each project imports the decorators, enums,
 * registerTool and isFallbackEnabled, is type-checked by TypeScript 5.9 and 7 (the two main
 * consumers with skipLibCheck off, so svc's declaration files are checked under their options too;
 * the others with it on, as checking those files again under each option costs seconds), and its
 * output runs on this Node. Lines marked @ts-expect-error prove the types are svc's and not `any`.
 * docs/packaging.md describes the results.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/fixture-app.js';
import { installPacked } from '../support/packed-package.js';
import { tempDir } from '../support/temp-dir.js';

const run = promisify(execFile);
const TSC = { 'TS 5.9': join(ROOT, 'node_modules/typescript5/bin/tsc'), 'TS 7': join(ROOT, 'node_modules/typescript/bin/tsc') } as const;
type TypeScript = keyof typeof TSC;

const SOURCE = `import * as svc from '@svc/register/api';
import { AgentObservable, type AgentObservableOptions, AgentOperation, DeclareDependency, DependencyType, defineTool, isFallbackEnabled, page, registerTool, ServiceTier, text } from '@svc/register/api';

@AgentObservable({ team: 'checkout', tier: ServiceTier.CRITICAL })
@DeclareDependency({ name: 'payments-api', type: DependencyType.EXTERNAL_API })
export class CheckoutApp {}

export class Pricing {
  @AgentOperation({ expectedLatencyP99: '20ms', idempotent: true })
  quote(cart: readonly string[]): number {
    return cart.length;
  }
}

registerTool({ name: 'get_queue_depth', description: 'Jobs waiting', permission: 'READ', readOnly: true }, () => '0 jobs');
registerTool(defineTool({ name: 'get_queue', description: 'One queue', readOnly: true, params: { queue: text('Queue name', { required: true }), page: page() }, handler: ({ queue, page }) => \`\${queue}: page \${page.toFixed(0)}\` }));
// @ts-expect-error a required text parameter is a string, not possibly undefined, and page a number
defineTool({ name: 'typed', description: 'Typed', params: { queue: text('Queue name', { required: true }) }, handler: ({ queue }) => queue.toFixed(0) });
const fallback: boolean = isFallbackEnabled('POST /checkout');

// @ts-expect-error the tier is a ServiceTier
export const wrongTier: AgentObservableOptions = { team: 'checkout', tier: 'gold' };
// @ts-expect-error an operation is named by a string
isFallbackEnabled(42);

console.log(JSON.stringify({ quote: new Pricing().quote(['a', 'b']), fallback, exports: Object.keys(svc).filter((k) => k !== 'default').sort() }));
`;

interface Consumer {
  readonly name: string;
  /** package.json "type" of the consumer project. */
  readonly type: 'commonjs' | 'module';
  readonly options: Record<string, unknown>;
  /** Options for one TypeScript only. */
  readonly only?: Partial<Record<TypeScript, Record<string, unknown>>>;
  /** Type-check the declaration files too (skipLibCheck off). */
  readonly checkLibraries?: boolean;
}

const LEGACY = { experimentalDecorators: true, emitDecoratorMetadata: true };

const CONSUMERS: readonly Consumer[] = [
  // A Nest project's classic tsconfig: module commonjs, no moduleResolution. TypeScript 5 resolves
  // that as node10 (set here explicitly); TypeScript 7 removed node10 and resolves it as bundler.
  { name: 'commonjs', type: 'commonjs', options: { module: 'commonjs', esModuleInterop: true, ...LEGACY }, only: { 'TS 5.9': { moduleResolution: 'node10' } }, checkLibraries: true },
  { name: 'commonjs-nodenext', type: 'commonjs', options: { module: 'nodenext', moduleResolution: 'nodenext', ...LEGACY } },
  { name: 'commonjs-node20', type: 'commonjs', options: { module: 'node20', moduleResolution: 'node16', ...LEGACY } },
  { name: 'esm-nodenext', type: 'module', options: { module: 'nodenext', moduleResolution: 'nodenext', ...LEGACY }, checkLibraries: true },
  { name: 'esm-node16-standard-decorators', type: 'module', options: { module: 'node16', moduleResolution: 'node16' } },
  { name: 'esm-bundler', type: 'module', options: { module: 'esnext', moduleResolution: 'bundler', ...LEGACY } },
];

let project: string;
let esmExports: string[];

function writeConsumer(consumer: Consumer, typescript: TypeScript): string {
  const dir = join(project, `${consumer.name}-${typescript.replace(/\W/g, '')}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: consumer.name, private: true, type: consumer.type }));
  const compilerOptions = { target: 'es2022', strict: true, skipLibCheck: !consumer.checkLibraries, types: ['node'], outDir: 'out', ...consumer.options, ...consumer.only?.[typescript] };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['main.ts'] }, null, 2));
  writeFileSync(join(dir, 'main.ts'), SOURCE);
  return dir;
}

/** Compiles; resolves with tsc's diagnostics ('' when clean). */
async function compile(dir: string, typescript: TypeScript): Promise<string> {
  try {
    await run(process.execPath, [TSC[typescript], '-p', dir], { cwd: dir });
    return '';
  } catch (error) {
    const { stdout, stderr, message } = error as { stdout?: string; stderr?: string; message: string };
    return `${stdout ?? ''}${stderr ?? ''}` || message;
  }
}

async function node(dir: string, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, args, { cwd: dir });
}

beforeAll(() => {
  project = tempDir();
  installPacked(project, ['@types/node']);
}, 60_000);

// The links to the repository's installed dependencies go with the directory; their targets stay.
afterAll(() => rmSync(project, { recursive: true, force: true }));

beforeAll(async () => {
  const { stdout } = await node(project, ['--input-type=module', '-e', "console.log(JSON.stringify(Object.keys(await import('@svc/register/api')).sort()))"]);
  esmExports = JSON.parse(stdout) as string[];
  expect(esmExports).toContain('AgentOperation');
}, 60_000);

describe.each(CONSUMERS)('consumer $name', (consumer) => {
  it.each(Object.keys(TSC) as TypeScript[])(
    'type-checks with %s and runs on Node with the exports the types describe',
    async (typescript) => {
      const dir = writeConsumer(consumer, typescript);
      expect(await compile(dir, typescript)).toBe('');
      const { stdout, stderr } = await node(dir, ['out/main.js']);
      expect(JSON.parse(stdout)).toEqual({ quote: 2, fallback: false, exports: esmExports });
      // require(esm) of the API loads without an experimental warning on the engines' Node versions.
      expect(stderr).toBe('');
    },
    120_000,
  );
});

it("require('@svc/register/api') returns the ES module's exports (require(esm), Node >= 22.12)", async () => {
  const { stdout, stderr } = await node(project, ['-e', "console.log(JSON.stringify(Object.keys(require('@svc/register/api')).sort()))"]);
  expect(JSON.parse(stdout)).toEqual(esmExports);
  expect(stderr).toBe('');
});

it.each(Object.keys(TSC) as TypeScript[])(
  'a CommonJS project with module node16 is refused by %s (TS1479): it models Node 16, which cannot require an ES module',
  async (typescript) => {
    const dir = writeConsumer({ name: 'commonjs-node16', type: 'commonjs', options: { module: 'node16', moduleResolution: 'node16', ...LEGACY } }, typescript);
    expect(await compile(dir, typescript)).toContain(
      "error TS1479: The current file is a CommonJS module whose imports will produce 'require' calls; however, the referenced file is an ECMAScript module",
    );
  },
  120_000,
);
