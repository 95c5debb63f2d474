/**
 * Precedence with provenance (rule 2): for every key the highest-precedence source that gives it
 * decides. A value that does not parse is reported and the key takes its default (not a lower
 * source's value: a typo in an override must not silently revive an older setting). List items
 * beyond their `limits.*` cap are dropped before anything counts them, and the rules between
 * keys (cross-key-rules.ts) are applied last.
 */
import { formatKey, type Segment, specOf, UnknownKeyError } from './config-key.js';
import { type ConfigProblem, DEFAULT_SOURCE, type RawEntry, type Source } from './config-source.js';
import { crossKeyCorrections } from './cross-key-rules.js';
import { isSecretPath, type KeySpec, SCHEMA } from './schema.js';
import { TEXT_CHARS, ValueError } from './value-types.js';

export interface ResolvedValue<T = unknown> {
  readonly key: string;
  readonly value: T;
  readonly source: Source;
}

/** Each list's cap: an index at or above it is refused, so `dependencies[1000000000]` allocates nothing. */
const LIST_CAPS: ReadonlyMap<Segment, string> = new Map([
  ['dependencies', 'limits.max-dependencies'],
  ['consumers', 'limits.max-consumers'],
]);

/** The groups whose members are user-named or list items, and so can be incomplete. */
const GROUPS = ['dependencies', 'consumers', 'operations', 'profiles', 'slos', 'agent-roles', 'agentic.agents', 'mcp.tokens'];

function groupOf(segments: readonly Segment[]): { prefix: string; member: Segment; depth: number } | undefined {
  const dotted = segments.map(String);
  for (const prefix of GROUPS) {
    const parts = prefix.split('.');
    if (parts.every((part, i) => dotted[i] === part) && segments.length > parts.length) {
      return { prefix, member: segments[parts.length]!, depth: parts.length };
    }
  }
  return undefined;
}

/** A key's default, parsed by its type (defaults are written as a user would, `60s`). */
function defaultOf(path: string): unknown {
  const spec = SCHEMA.find((s) => s.path === path);
  return spec?.default === undefined ? undefined : spec.type.parse(spec.default);
}

export class ResolvedConfig {
  private readonly values = new Map<string, ResolvedValue>();
  private readonly segmentsByKey = new Map<string, readonly Segment[]>();
  private readonly rejected = new Set<string>();

  constructor(
    entriesByPrecedence: readonly (readonly RawEntry[])[],
    readonly problems: ConfigProblem[] = [],
  ) {
    const decided = new Set<string>();
    for (const entries of entriesByPrecedence) {
      for (const entry of entries) this.take(entry, decided);
    }
    this.dropItemsBeyondCaps();
    this.dropIncompleteGroups();
    this.applyCrossKeyRules();
  }

  private take(entry: RawEntry, decided: Set<string>): void {
    let spec: KeySpec;
    try {
      spec = specOf(entry.segments);
    } catch (error) {
      if (!(error instanceof UnknownKeyError)) throw error;
      this.problems.push({ level: 'error', key: `svc.${formatKey(entry.segments)}`, where: entry.source.where, message: `${error.message}; ignored` });
      return;
    }
    const long = entry.segments.find((s): s is string => typeof s === 'string' && s.length > TEXT_CHARS);
    if (long !== undefined) {
      const key = formatKey(entry.segments.map((s) => (s === long ? `${long.slice(0, 40)}…` : s)));
      this.problems.push({ level: 'error', key: `svc.${key}`, where: entry.source.where, message: `a name in this key is ${long.length} characters long, more than ${TEXT_CHARS}; ignored` });
      return;
    }
    const key = formatKey(entry.segments);
    if (decided.has(key)) return;
    decided.add(key);
    this.segmentsByKey.set(key, entry.segments);
    try {
      this.values.set(key, { key, value: spec.type.parse(entry.raw), source: entry.source });
    } catch (error) {
      if (!(error instanceof ValueError)) throw error;
      const fallback = spec.path.includes('*') ? 'ignored, as if not configured' : spec.default === undefined ? 'left unset' : `using the default ${JSON.stringify(spec.default)}`;
      const what = isSecretPath(spec.path) ? `the value (not shown: values under svc.mcp.tokens are never printed) ${error.reason}` : error.message;
      this.rejected.add(key);
      this.problems.push({ level: 'error', key: `svc.${key}`, where: entry.source.where, message: `${what}; accepted: ${spec.type.accepts}; ${fallback}` });
    }
  }

  /** Drops list items at or above their list's cap, one problem per list. */
  private dropItemsBeyondCaps(): void {
    const beyond = new Map<string, { key: string; where: string; index: number; count: number }>();
    for (const [key, resolved] of this.values) {
      const [list, index] = this.segmentsOf(key);
      const capPath = list === undefined ? undefined : LIST_CAPS.get(list);
      if (capPath === undefined || typeof index !== 'number' || index < this.get<number>(capPath)) continue;
      this.values.delete(key);
      const found = beyond.get(capPath);
      if (found) {
        found.count++;
        if (index < found.index) Object.assign(found, { key, where: resolved.source.where, index });
      } else beyond.set(capPath, { key, where: resolved.source.where, index, count: 1 });
    }
    for (const [capPath, { key, where, index, count }] of beyond) {
      const cap = this.get<number>(capPath);
      const more = count > 1 ? ` (and ${count - 1} more value(s) at such indexes)` : '';
      this.problems.push({
        level: 'error',
        key: `svc.${key}`,
        where,
        message: `list index ${index} is not below svc.${capPath} (${cap}); accepted: indexes 0 to ${cap - 1}; ignored${more}`,
      });
    }
  }

  private applyCrossKeyRules(): void {
    for (const { path, value, message } of crossKeyCorrections(
      (path) => this.get<number>(path),
      (path) => defaultOf(path) as number,
    )) {
      const { source } = this.resolved(path);
      this.values.set(path, { key: path, value, source });
      this.rejected.add(path);
      this.problems.push({ level: 'error', key: `svc.${path}`, where: source.where, message });
    }
  }

  /** A list item or named entry missing a required key is reported and dropped whole. */
  private dropIncompleteGroups(): void {
    const members = new Map<string, { prefix: string; member: Segment; keys: string[]; fields: Set<string>; where: string }>();
    for (const [key, resolved] of this.values) {
      const segments = this.segmentsOf(key);
      const group = groupOf(segments);
      if (!group) continue;
      const id = `${group.prefix}\u0000${group.member}`;
      let found = members.get(id);
      if (!found) members.set(id, (found = { prefix: group.prefix, member: group.member, keys: [], fields: new Set(), where: resolved.source.where }));
      found.keys.push(key);
      found.fields.add(segments.slice(group.depth + 1).join('.'));
    }
    for (const group of members.values()) {
      const pattern = typeof group.member === 'number' ? `${group.prefix}[].` : `${group.prefix}.*.`;
      const missing = SCHEMA.filter((s) => s.required && s.path.startsWith(pattern) && !group.fields.has(s.path.slice(pattern.length)));
      if (missing.length === 0) continue;
      for (const key of group.keys) this.values.delete(key);
      const groupKey = `svc.${formatKey([...group.prefix.split('.'), group.member])}`;
      const names = missing.map((s) => s.path.slice(pattern.length)).join(', ');
      this.problems.push({ level: 'error', key: groupKey, where: group.where, message: `missing required ${names}; this entry is ignored` });
    }
  }

  /** The segments of a key a source gave, or of a scalar key's path (`telemetry.shutdown-timeout`). */
  segmentsOf(key: string): readonly Segment[] {
    return this.segmentsByKey.get(key) ?? key.split('.');
  }

  /** The value of a key without `*` or `[]` (its default when no source gives it). */
  get<T>(path: string): T {
    return this.resolved<T>(path).value;
  }

  resolved<T>(path: string): ResolvedValue<T> {
    const found = this.values.get(path);
    if (found) return found as ResolvedValue<T>;
    return { key: path, value: defaultOf(path) as T, source: DEFAULT_SOURCE };
  }

  /** True when a source gave the key a value that did not validate (so the key holds its default). */
  isRejected(path: string): boolean {
    return this.rejected.has(path);
  }

  /** User-chosen names under a named group, such as the operation names under `operations`. */
  names(prefix: string): string[] {
    const depth = prefix.split('.').length;
    const names = new Set<string>();
    for (const key of this.values.keys()) {
      const segments = this.segmentsOf(key);
      if (segments.length > depth && segments.slice(0, depth).join('.') === prefix) names.add(String(segments[depth]));
    }
    return [...names];
  }

  /** Number of items of a list group (`dependencies`, `consumers`), counting gaps left by dropped items. */
  listLength(prefix: string): number {
    let length = 0;
    for (const key of this.values.keys()) {
      const segments = this.segmentsOf(key);
      if (segments[0] === prefix && typeof segments[1] === 'number') length = Math.max(length, segments[1] + 1);
    }
    return length;
  }

  /** A configured value of a group member, or undefined; group members have no defaults here. */
  member<T>(prefix: string, member: Segment, field?: string): ResolvedValue<T> | undefined {
    const segments: Segment[] = [...prefix.split('.'), member];
    if (field) segments.push(...field.split('.'));
    return this.values.get(formatKey(segments)) as ResolvedValue<T> | undefined;
  }

  /** A group member's configured value, else its key's default. */
  memberOrDefault<T>(prefix: string, member: Segment, field: string): T {
    const configured = this.member<T>(prefix, member, field);
    if (configured) return configured.value;
    return defaultOf(`${prefix}${typeof member === 'number' ? '[]' : '.*'}.${field}`) as T;
  }

  /** Every configured value plus the defaults of scalar keys, for `svc check`. */
  *entries(): Iterable<ResolvedValue> {
    yield* this.values.values();
    for (const spec of SCHEMA) {
      if (spec.path.includes('*') || spec.path.includes('[]') || this.values.has(spec.path) || spec.default === undefined) continue;
      yield { key: spec.path, value: defaultOf(spec.path), source: DEFAULT_SOURCE };
    }
  }

  /** Problems at or above the given level. */
  errors(): ConfigProblem[] {
    return this.problems.filter((p) => p.level === 'error');
  }
}
