/**
 * The YAML config file (rules 2, 3, 8). Keys are walked along the schema, so operation names with
 * spaces, slashes and dots are plain YAML keys; every value keeps its `file:line` for messages.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import type { Node } from 'yaml';
import { formatKey, SchemaCursor, type Segment, UnknownKeyError } from './config-key.js';
import type { ConfigProblem, RawEntry } from './config-source.js';
import { yaml } from './yaml.js';
import { describeYamlError } from './yaml-error.js';

/**
 * Largest config file read. The YAML parser takes 1 to 4 microseconds per character on hostile
 * input (measured: 256 KiB of "[" in about 1 s), so start-up waits at most about a second; a file
 * with every key and 1,000 operations is about 100 KB.
 */
export const MAX_FILE_BYTES = 256 * 1024;

export interface FileRead {
  readonly entries: RawEntry[];
  readonly problems: ConfigProblem[];
  /**
   * The file exists (or was named) but nothing of it can be used: unreadable, refused, invalid
   * YAML, not a mapping. svc then turns itself off rather than run on settings nobody chose
   * (load-config.ts; docs/configuration.md "Bad configuration").
   */
  readonly unusable?: boolean;
  /** No file at the default path (`./svc.yml`): nothing was read, and that is fine. */
  readonly absent?: boolean;
}

/** The entry that turns svc off when the file is unusable; it beats every source. */
export function svcOffEntry(shown: string): RawEntry {
  return { segments: ['enabled'], raw: false, source: { kind: 'file', where: `${shown} not read: svc is off` } };
}

/** What an unusable file means, at the end of its one error. */
export const SVC_OFF = 'the file is not read, so svc is off for this process (svc.enabled=false: no analysis, no MCP tool server; the application and its OpenTelemetry export run on)';

/**
 * Reads `path`. A missing file is an error only when the path was configured explicitly;
 * the default `./svc.yml` is optional.
 */
export function readConfigFile(path: string, explicit: boolean, cwd: string): FileRead {
  const fromCwd = relative(cwd, path);
  const shown = fromCwd && !fromCwd.startsWith('..') ? fromCwd : path;
  let text: string;
  try {
    text = readBounded(path);
  } catch (error) {
    if (error instanceof FileRefused) return { entries: [], problems: [{ level: 'error', key: 'svc.config.file', where: shown, message: `${error.message}; ${SVC_OFF}` }], unusable: true };
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return { entries: [], problems: [], absent: true };
    return { entries: [], problems: [{ level: 'error', key: 'svc.config.file', where: shown, message: `cannot read the config file (${code ?? String(error)}); ${SVC_OFF}` }], unusable: true };
  }
  return parseConfigText(text, shown);
}

class FileRefused extends Error {}

/** Reads at most MAX_FILE_BYTES of a regular file: a huge file, /dev/zero or a FIFO is refused without being read whole. */
function readBounded(path: string): string {
  // Opening a FIFO blocks until a writer comes: look before opening, and open without blocking.
  if (!statSync(path).isFile()) throw new FileRefused('not a regular file');
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new FileRefused('not a regular file');
    const buffer = Buffer.alloc(MAX_FILE_BYTES + 1);
    let length = 0;
    for (let read = 1; read > 0 && length < buffer.length; length += read) read = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > MAX_FILE_BYTES) throw new FileRefused(`larger than ${MAX_FILE_BYTES / 1024} KiB`);
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

/** Only blank lines and comments: read as an empty document without loading the YAML parser. */
const holdsNothing = (text: string): boolean => text.split('\n').every((line) => /^\s*(#|$)/.test(line));

export function parseConfigText(text: string, shown: string): FileRead {
  const entries: RawEntry[] = [];
  const problems: ConfigProblem[] = [];
  if (holdsNothing(text)) return { entries, problems };
  const { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  // prettyErrors formats every error with its line, quadratic on a long broken line (an OOM abort at 1 MB of "{").
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false });
  const where = (node: Node | null | undefined): string => (node?.range ? `${shown}:${lineCounter.linePos(node.range[0]).line}` : shown);

  if (doc.errors.length > 0) {
    const report = describeYamlError(text, doc.errors, lineCounter);
    problems.push({ level: 'error', key: 'svc.config.file', where: `${shown}:${report.line}:${report.col}`, message: `${report.message}; ${SVC_OFF}`, detail: report.detail });
    return { entries, problems, unusable: true };
  }

  let root: unknown = doc.contents;
  if (root === null || (isScalar(root) && root.value === null)) return { entries, problems };
  if (!isMap(root)) {
    problems.push({ level: 'error', key: 'svc.config.file', where: where(root as Node), message: `the file must hold a mapping of svc keys (key: value lines); ${SVC_OFF}` });
    return { entries, problems, unusable: true };
  }
  const isAnchorKey = (key: unknown): boolean => isScalar(key) && String(key.value).startsWith('x-');
  const own = root.items.filter((pair) => !isAnchorKey(pair.key));
  const svc = own.length === 1 && isScalar(own[0]!.key) && own[0]!.key.value === 'svc' ? own[0]!.value : undefined;
  if (svc !== undefined) root = svc;

  const walk = (given: unknown, cursor: SchemaCursor, segments: Segment[]): void => {
    const node = isAlias(given) ? given.resolve(doc) : given;
    if (cursor.spec) {
      let raw: unknown;
      try {
        raw = isSeq(node) ? node.toJSON() : isScalar(node) ? node.value : (node as Node | null)?.toJSON?.();
      } catch (error) {
        // toJSON refuses alias expansions beyond yaml's maxAliasCount (an alias bomb).
        problems.push({ level: 'error', key: `svc.${formatKey(segments)}`, where: where(node as Node), message: `the value cannot be read (${(error as Error).message}); ignored` });
        return;
      }
      entries.push({ segments, raw, source: { kind: 'file', where: where(node as Node) } });
      return;
    }
    const display = `svc.${formatKey(segments)}`;
    if (cursor.isList) {
      if (!isSeq(node)) {
        problems.push({ level: 'error', key: display, where: where(node as Node), message: 'expected a list, ignored' });
        return;
      }
      for (const [index, item] of node.items.entries()) walk(item, cursor.item(), [...segments, index]);
      return;
    }
    if (!isMap(node)) {
      if (isScalar(node) && node.value === null) return;
      problems.push({ level: 'error', key: display, where: where(node as Node), message: 'expected a mapping of keys, ignored' });
      return;
    }
    for (const pair of node.items) {
      if (!isScalar(pair.key)) {
        // A mapping or list as a key (`? [a]`) names nothing here; printing one is exponential when they nest.
        problems.push({ level: 'error', key: segments.length ? display : 'svc.config.file', where: where(pair.key as Node), message: 'a key that is a mapping or a list; ignored' });
        continue;
      }
      const key = String(pair.key.value);
      // Top-level `x-` keys hold YAML anchors for the rest of the file (as in docker compose): not svc keys, not mistakes.
      if (segments.length === 0 && key.startsWith('x-')) continue;
      let next: SchemaCursor;
      try {
        next = cursor.child(key);
      } catch (error) {
        if (!(error instanceof UnknownKeyError)) throw error;
        const keyDisplay = `svc.${formatKey([...segments, key])}`;
        problems.push({ level: 'error', key: keyDisplay, where: where(pair.key as Node), message: `${error.message}; ignored` });
        continue;
      }
      walk(pair.value, next, [...segments, key]);
    }
  };
  walk(root, SchemaCursor.root(), []);
  return { entries, problems };
}
