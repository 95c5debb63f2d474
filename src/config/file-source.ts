/**
 * The YAML config file (rules 2, 3, 8). Keys are walked along the schema, so operation names with
 * spaces, slashes and dots are plain YAML keys; every value keeps its `file:line` for messages.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { SchemaCursor, type Segment, UnknownKeyError } from './config-key.js';
import type { ConfigProblem, RawEntry } from './config-source.js';

/**
 * Largest config file read. The YAML parser takes 1 to 4 microseconds per character on hostile
 * input (measured: 256 KiB of "[" in about 1 s), so start-up waits at most about a second; a file
 * with every key and 1,000 operations is about 100 KB.
 */
export const MAX_FILE_BYTES = 256 * 1024;

export interface FileRead {
  readonly entries: RawEntry[];
  readonly problems: ConfigProblem[];
}

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
    if (error instanceof FileRefused) return { entries: [], problems: [{ level: 'error', key: 'svc.config.file', where: shown, message: `${error.message}; file ignored` }] };
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return { entries: [], problems: [] };
    return { entries: [], problems: [{ level: 'error', key: 'svc.config.file', where: shown, message: `cannot read the config file (${code ?? String(error)})` }] };
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

/**
 * The parser's message, unless it quotes the file (`Unresolved plain scalar "<a pasted token>"`):
 * then only its code, so nothing under mcp.tokens can reach stderr through a syntax error.
 */
function sourceFreeMessage(message: string, code: string, text: string): string {
  const first = message.split('\n')[0]!;
  const quotes = (first.match(/[\w+/=.~-]{6,}/g) ?? []).some((run) => text.includes(run));
  return quotes ? code.toLowerCase().replace(/_/g, ' ') : first;
}

export function parseConfigText(text: string, shown: string): FileRead {
  const entries: RawEntry[] = [];
  const problems: ConfigProblem[] = [];
  const lineCounter = new LineCounter();
  // prettyErrors formats every error with its line, quadratic on a long broken line (an OOM abort at 1 MB of "{").
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false });
  const where = (node: Node | null | undefined): string => (node?.range ? `${shown}:${lineCounter.linePos(node.range[0]).line}` : shown);

  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const { line, col } = lineCounter.linePos(first.pos[0]);
    problems.push({ level: 'error', key: 'svc.config.file', where: `${shown}:${line}`, message: `invalid YAML, file ignored: ${sourceFreeMessage(first.message, first.code, text)} (column ${col})` });
    return { entries, problems };
  }

  let root: unknown = doc.contents;
  if (root === null || (isScalar(root) && root.value === null)) return { entries, problems };
  if (!isMap(root)) {
    problems.push({ level: 'error', key: 'svc.config.file', where: where(root as Node), message: 'the file must hold a mapping of svc keys, file ignored' });
    return { entries, problems };
  }
  const svc = root.items.length === 1 && isScalar(root.items[0]!.key) && root.items[0]!.key.value === 'svc' ? root.items[0]!.value : undefined;
  if (svc !== undefined) root = svc;

  const walk = (given: unknown, cursor: SchemaCursor, segments: Segment[]): void => {
    const node = isAlias(given) ? given.resolve(doc) : given;
    if (cursor.spec) {
      let raw: unknown;
      try {
        raw = isSeq(node) ? node.toJSON() : isScalar(node) ? node.value : (node as Node | null)?.toJSON?.();
      } catch (error) {
        // toJSON refuses alias expansions beyond yaml's maxAliasCount (an alias bomb).
        problems.push({ level: 'error', key: `svc.${segments.map(String).join('.')}`, where: where(node as Node), message: `the value cannot be read (${(error as Error).message}); ignored` });
        return;
      }
      entries.push({ segments, raw, source: { kind: 'file', where: where(node as Node) } });
      return;
    }
    const display = `svc.${segments.map(String).join('.')}`;
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
        problems.push({ level: 'warning', key: segments.length ? display : 'svc.config.file', where: where(pair.key as Node), message: 'a key that is a mapping or a list; ignored' });
        continue;
      }
      const key = String(pair.key.value);
      let next: SchemaCursor;
      try {
        next = cursor.child(key);
      } catch (error) {
        if (!(error instanceof UnknownKeyError)) throw error;
        const keyDisplay = segments.length ? `${display}.${key}` : `svc.${key}`;
        problems.push({ level: 'warning', key: keyDisplay, where: where(pair.key as Node), message: `${error.message}; ignored` });
        continue;
      }
      walk(pair.value, next, [...segments, key]);
    }
  };
  walk(root, SchemaCursor.root(), []);
  return { entries, problems };
}
