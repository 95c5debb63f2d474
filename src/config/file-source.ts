/**
 * The YAML config file (rules 2, 3, 8). Keys are walked along the schema, so operation names with
 * spaces, slashes and dots are plain YAML keys; every value keeps its `file:line` for messages.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { SchemaCursor, UnknownKeyError, type Segment } from './config-key.js';
import type { ConfigProblem, RawEntry } from './config-source.js';

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
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return { entries: [], problems: [] };
    return { entries: [], problems: [{ level: 'error', key: 'svc.config.file', where: shown, message: `cannot read the config file (${code ?? String(error)})` }] };
  }
  return parseConfigText(text, shown);
}

export function parseConfigText(text: string, shown: string): FileRead {
  const entries: RawEntry[] = [];
  const problems: ConfigProblem[] = [];
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false });
  const where = (node: Node | null | undefined): string =>
    node?.range ? `${shown}:${lineCounter.linePos(node.range[0]).line}` : shown;

  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const line = first.linePos?.[0]?.line;
    const message = first.message.split('\n')[0]!;
    problems.push({ level: 'error', key: 'svc.config.file', where: line ? `${shown}:${line}` : shown, message: `invalid YAML, file ignored: ${message}` });
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

  const walk = (node: unknown, cursor: SchemaCursor, segments: Segment[]): void => {
    if (cursor.spec) {
      const raw = isSeq(node) ? node.toJSON() : isScalar(node) ? node.value : (node as Node | null)?.toJSON?.();
      entries.push({ segments, raw, source: { kind: 'file', where: where(node as Node) } });
      return;
    }
    const display = `svc.${segments.map(String).join('.')}`;
    if (cursor.isList) {
      if (!isSeq(node)) {
        problems.push({ level: 'error', key: display, where: where(node as Node), message: 'expected a list, ignored' });
        return;
      }
      node.items.forEach((item, index) => walk(item, cursor.item(), [...segments, index]));
      return;
    }
    if (!isMap(node)) {
      if (isScalar(node) && node.value === null) return;
      problems.push({ level: 'error', key: display, where: where(node as Node), message: 'expected a mapping of keys, ignored' });
      return;
    }
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
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
