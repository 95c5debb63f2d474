/**
 * Bundles what svc uses of the MCP SDK v2 (src/mcp/mcp-sdk-bundle.ts) into one minified ESM file,
 * dist/mcp/mcp-sdk-bundle.js, replacing tsc's re-export. Loading the SDK's own modules costs the
 * first agent session nearly three times the heap (docs/mcp.md, "Cost"): every module of the SDK, zod
 * and AJV, whole, where the bundle holds only what the exports reach.
 *
 * The installed packages stay the source of truth: the bundle is built from them at every build,
 * and its first line names their versions (test/mcp/sdk-bundle.test.ts compares). The SDK's
 * Node shim would bring AJV, its default JSON Schema validator, used only to check what a client
 * answers to an elicitation, which svc never sends; the bundle takes the SDK's own shim for
 * runtimes without Node instead, whose validator is @cfworker/json-schema (a seventh of the code).
 *
 * One change to zod on the way in (zodFailureAsClass below): a failed parse's result is a class
 * instance, not an object literal with an accessor. One change to the bundled code on the way out
 * (youngFunctionLiterals, scripts/young-function-literals.mjs): no function literal is assigned
 * straight to a property.
 *
 * Fails the build when a package other than the SDK and zod, or AJV, ends up in the bundle, when
 * the bundle imports anything but Node's built-in modules, or when either change finds nothing to change.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { youngFunctionLiterals } from './young-function-literals.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist/mcp/mcp-sdk-bundle.js');
const BUNDLED = ['@modelcontextprotocol/server', '@modelcontextprotocol/core', 'zod'];

const fail = (message) => {
  console.error(`MCP SDK bundle: ${message}`);
  process.exit(1);
};
const readManifest = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

const serverDir = join(root, 'node_modules/@modelcontextprotocol/server');
const shimWithoutNode = readManifest(serverDir).exports['./_shims']?.browser?.import?.default;
if (typeof shimWithoutNode !== 'string') fail(`@modelcontextprotocol/server no longer exports a browser "_shims", the shim without AJV that this build takes; see scripts/build-mcp-sdk.mjs`);

/** The SDK picks its shim by export condition; svc takes the one for runtimes without Node (no AJV) on Node too. */
const shimsWithoutAjv = {
  name: 'mcp-sdk-shims',
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: join(serverDir, shimWithoutNode) }));
  },
};

/**
 * zod's failed `safeParse` result is an object literal with a getter and a setter (`failure` in
 * its core/parse.js). V8 allocates a literal's accessor pair in the old generation, so the two
 * closures and all they hold (the issues, the parse's context, the values parsed) outlive each
 * young-generation collection, copied and then promoted by it. The SDK checks each message against
 * the response schemas before the request ones, so every request fails several parses: in the
 * bench app (bench/mcp-session.mjs) a young collection kept 3 MB of them and paused the app 3-4 ms
 * every hundred calls of get_service_health (docs/mcp.md, "Cost"). The same getter and setter on
 * a class keep those objects young; its fields are private, so the result shows only `success`
 * (and `error` through the getter: a spread copy has no `error`, where the literal's had it, and
 * nothing in the SDK or zod spreads a result).
 */
const ZOD_FAILURE = `function failure(Err, issues, ctx) {
    let error;
    return {
        success: false,
        get error() {
            if (!error) {
                error = new Err(issues.map((iss) => util.finalizeIssue(iss, ctx, core.config())));
                // finalizeIssue drops \`input\`, so the built error holds nothing; keeping the raw issues past this point pins the parsed value for the life of the result
                issues = undefined;
                ctx = undefined;
            }
            return error;
        },
        set error(e) {
            error = e;
            // a replacement makes the getter's branch unreachable, so the captures have to go here too
            issues = undefined;
            ctx = undefined;
        },
    };
}`;
const ZOD_FAILURE_AS_CLASS = `class Failure {
    success = false;
    #error;
    #Err;
    #issues;
    #ctx;
    constructor(Err, issues, ctx) {
        this.#Err = Err;
        this.#issues = issues;
        this.#ctx = ctx;
    }
    get error() {
        if (!this.#error) {
            this.#error = new this.#Err(this.#issues.map((iss) => util.finalizeIssue(iss, this.#ctx, core.config())));
            this.#issues = undefined;
            this.#ctx = undefined;
        }
        return this.#error;
    }
    set error(e) {
        this.#error = e;
        this.#issues = undefined;
        this.#ctx = undefined;
    }
}
function failure(Err, issues, ctx) {
    return new Failure(Err, issues, ctx);
}`;
let zodFailurePatched = false;
const zodFailureAsClass = {
  name: 'zod-failure-as-class',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]core[\\/]parse\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(ZOD_FAILURE))
        fail(`${args.path} no longer has the failed-parse result this build replaces: check whether it is still an object literal with an accessor (scripts/build-mcp-sdk.mjs, zodFailureAsClass)`);
      zodFailurePatched = true;
      return { contents: source.replace(ZOD_FAILURE, ZOD_FAILURE_AS_CLASS), loader: 'js' };
    });
  },
};

const result = await build({
  entryPoints: [join(root, 'src/mcp/mcp-sdk-bundle.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  minify: true,
  legalComments: 'none',
  metafile: true,
  write: false,
  plugins: [shimsWithoutAjv, zodFailureAsClass],
  logLevel: 'warning',
});

if (!zodFailurePatched) fail(`zod's core/parse.js was not in the bundle, so its failed-parse result was not replaced: update zodFailureAsClass`);

const inputs = Object.keys(result.metafile.inputs).filter((input) => input.includes('node_modules/'));
/** Each bundled package's directory, from the files esbuild read: the versions named are the ones bundled. */
const packageDirs = new Map();
for (const input of inputs) {
  const name = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)[1];
  const dir = join(root, input.slice(0, input.lastIndexOf(`node_modules/${name}/`) + `node_modules/${name}`.length));
  if (packageDirs.has(name) && packageDirs.get(name) !== dir) fail(`two copies of ${name} in the bundle: ${packageDirs.get(name)} and ${dir}`);
  packageDirs.set(name, dir);
}
const unexpected = [...packageDirs.keys()].filter((name) => !BUNDLED.includes(name));
if (unexpected.length) fail(`unexpected packages in the bundle: ${unexpected.join(', ')} (expected only ${BUNDLED.join(', ')})`);
const missing = BUNDLED.filter((name) => !packageDirs.has(name));
if (missing.length) fail(`${missing.join(', ')} not in the bundle: update BUNDLED`);
const ajv = inputs.filter((input) => /ajv/i.test(input));
if (ajv.length) fail(`AJV is in the bundle (${ajv.join(', ')}): the SDK's shim for runtimes without Node no longer avoids it`);
const builtins = new Set(builtinModules);
const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path));
const foreign = imports.filter((path) => !path.startsWith('node:') && !builtins.has(path));
if (foreign.length) fail(`the bundle imports ${foreign.join(', ')}; it may import only Node's built-in modules`);

const manifests = BUNDLED.map((name) => ({ name, dir: packageDirs.get(name), ...readManifest(packageDirs.get(name)) }));
const versions = manifests.map(({ name, version }) => `${name} ${version}`).join(', ');
const licenses = manifests.map(({ name, version, license, dir }) => `${name} ${version} (${license}):\n\n${readFileSync(join(dir, 'LICENSE'), 'utf8').trim()}`);
if (licenses.some((text) => text.includes('*/'))) fail('a license text contains "*/" and cannot be put in a comment');
const young = youngFunctionLiterals(result.outputFiles[0].text);
if (young.count === 0) fail('no function literal is assigned to a property in the bundle any more: youngFunctionLiterals may go');
const { code } = young;
writeFileSync(outfile, `// svc's tool server's MCP SDK, bundled by scripts/build-mcp-sdk.mjs from ${versions}. Their licenses follow the code.\n${code}/*\n${licenses.join('\n\n---\n\n')}\n*/\n`);
// tsc's map describes the re-export this file replaced.
rmSync(`${outfile}.map`, { force: true });
console.log(`MCP SDK bundle: dist/mcp/mcp-sdk-bundle.js ${(code.length / 1024).toFixed(0)} KB of code from ${versions}; ${young.count} function literals assigned to properties kept young`);
