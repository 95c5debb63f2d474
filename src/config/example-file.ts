/**
 * Renders `svc.yml.example` from the schema: every key with its doc, accepted values and
 * default. A test keeps the committed file equal to this output and checks it parses cleanly.
 * `node dist/config/example-file.js > svc.yml.example` regenerates it.
 */
import { fileURLToPath } from 'node:url';
import { envName, isScalarKey, type KeySpec, SCHEMA } from './schema.js';

/** Names used for the user-named entries, and values for keys that have no default. */
const EXAMPLE_NAMES: Record<string, string> = {
  operations: 'GET /orders/{id}',
  profiles: 'read-path',
  slos: 'orders-availability',
  'agent-roles': 'triager',
  'agentic.agents': 'support-bot',
  'mcp.tokens': 'ci-agent',
};

const EXAMPLE_VALUES: Record<string, unknown> = {
  'dependencies[].name': 'orders-db',
  'dependencies[].type': 'database',
  'dependencies[].criticality': 'required',
  'consumers[].name': 'web-frontend',
  'operations.*.profile': 'read-path',
  'operations.*.expected-latency-p50': '20ms',
  'operations.*.expected-latency-p99': '250ms',
  'slos.*.operation-name': 'GET /orders/{id}',
  'slos.*.target': 0.999,
  'slos.*.latency-threshold': '250ms',
  'agent-roles.*': ['READ', 'DIAGNOSE'],
  'agentic.agents.*.type': 'single',
  'mcp.tokens.*.sha256': 'c5a2bd3b0e2dfe6a5d15e10f2c4f3b1ad7b0a7e6f3d9b1c2e8f4a6d0b3c5e7f9',
  'mcp.tokens.*.role': 'operator',
  'mcp.oauth.issuer': 'https://login.example.com/realms/ops',
  'mcp.oauth.resource': 'https://orders.internal:7070/mcp',
  'mcp.oauth.introspection.client-secret': 'change-me',
};

function yamlValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.join(', ')}]`;
  if (typeof value === 'string') return value === '' || /[:#{}[\],&*!|>'"%@`]|^\s|\s$/.test(value) ? JSON.stringify(value) : value;
  return String(value);
}

function comment(spec: KeySpec): string {
  const parts = [spec.doc, spec.type.accepts];
  if (spec.required) parts.push('required');
  else if (spec.default !== undefined) parts.push(`default ${yamlValue(spec.default)}`);
  else parts.push('optional');
  if (isScalarKey(spec)) parts.push(`env ${envName(spec.path)}`);
  return parts.join('; ');
}

interface Line {
  readonly path: string[];
  readonly spec: KeySpec;
}

/** Splits a schema path into YAML keys, with example names in place of `*`. */
function yamlPath(spec: KeySpec): string[] {
  const keys: string[] = [];
  const parts = spec.path.split('.');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === '*') keys.push(EXAMPLE_NAMES[parts.slice(0, i).join('.')]!);
    else keys.push(part);
  }
  return keys;
}

export function renderExampleConfig(): string {
  const out = [
    '# svc.yml: every configuration key of @svc/register, generated from src/config/schema.ts.',
    '# Precedence, highest first: -Dsvc.<key>=<value> arguments, SVC_<KEY> env, this file, decorators, profiles, defaults.',
    '# The file is ./svc.yml unless -Dsvc.config.file or SVC_CONFIG_FILE names another.',
    '# Durations take ms, s or m. Operation names are keys: quote them when they hold { } [ ] , (as below),',
    '# so they survive being pasted into a flow mapping { ... }. `npx svc check` validates the file as start-up does.',
    'svc:',
  ];
  const lines: Line[] = SCHEMA.filter((s) => s.path !== 'config.file').map((spec) => ({ path: yamlPath(spec), spec }));
  let previous: string[] = [];
  for (const { path, spec } of lines) {
    const listIndex = path.findIndex((p) => p.endsWith('[]'));
    let common = 0;
    while (common < path.length - 1 && common < previous.length - 1 && path[common] === previous[common]) common++;
    for (let depth = common; depth < path.length; depth++) {
      const indent = '  '.repeat(depth + 1) + (listIndex >= 0 && depth > listIndex ? '  ' : '');
      const key = path[depth]!;
      const name = key.endsWith('[]') ? key.slice(0, -2) : key;
      if (depth === path.length - 1) {
        const value = spec.default !== undefined ? spec.default : EXAMPLE_VALUES[spec.path];
        out.push(`${indent}# ${comment(spec)}`);
        const first = listIndex >= 0 && depth === listIndex + 1 && (previous.length <= depth || previous[listIndex] !== path[listIndex]);
        const prefix = first ? `${'  '.repeat(depth + 1)}- ` : indent;
        out.push(`${prefix}${name}: ${yamlValue(value)}`);
      } else {
        // Names with { } [ ] , are quoted: plain, they work in block style but break when pasted into a flow mapping.
        out.push(`${indent}${/^[#&*!|>'"%@`-]|[[\]{},]|: | #/.test(name) ? JSON.stringify(name) : name}:`);
      }
    }
    previous = path;
  }
  return `${out.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(renderExampleConfig());
