/**
 * A YAML syntax error told so it can be fixed without opening a YAML reference: the line and
 * column, the offending line with a caret under the character, and the likely fix chosen by the
 * parser's error code and the text at the caret (a `{` inside a flow mapping: quote the value).
 *
 * Nothing under `svc.mcp.tokens` is ever printed: a line that mentions `tokens` or `sha256`, or
 * sits (by indentation) under a `tokens:` key, is not shown, nor is any fix quoting its text.
 */
import type { LineCounter, YAMLError } from 'yaml';
import { escapeUnprintable } from '../shared/printable.js';
import { yaml } from './yaml.js';

export interface YamlErrorReport {
  readonly line: number;
  readonly col: number;
  /** What is wrong, one line, without the file's text unless shown as safe. */
  readonly message: string;
  /** The offending line, a caret under the column, and the fix. */
  readonly detail: string[];
}

/** Characters of the offending line shown around the column. */
const EXCERPT_CHARS = 100;

/**
 * The parser's message, unless it quotes the file (`Unresolved plain scalar "<a pasted token>"`):
 * then only its code, so nothing under mcp.tokens can reach stderr through a syntax error.
 */
function sourceFreeMessage(message: string, code: string, text: string): string {
  const first = message.split('\n')[0]!;
  const quotes = (first.match(/[\w+/=.~-]{6,}/g) ?? []).some((run) => text.includes(run));
  return quotes ? code.toLowerCase().replace(/_/g, ' ') : first;
}

/** How many times `char` ends `text`. */
function trailing(text: string, char: string): number {
  let n = 0;
  while (n < text.length && text[text.length - 1 - n] === char) n++;
  return n;
}

interface Unclosed {
  readonly offset: number;
  readonly opener: string;
}

/**
 * Flow collections and quoted scalars the parser opened but never closed, from its token tree:
 * the parser reports them where the file ends, the fix belongs where they begin.
 */
function unclosedOpeners(text: string): Unclosed[] {
  const found: Unclosed[] = [];
  const seen = new Set<object>();
  const visit = (node: unknown, depth: number): void => {
    if (node === null || typeof node !== 'object' || seen.has(node) || depth > 200) return;
    seen.add(node);
    const token = node as { type?: string; offset?: number; source?: string; start?: { source?: string }; end?: { source?: string }[] };
    if (token.type === 'flow-collection' && typeof token.offset === 'number') {
      const opener = token.start?.source ?? '';
      const closer = opener === '{' ? '}' : ']';
      if (!(token.end ?? []).some((t) => t.source === closer)) found.push({ offset: token.offset, opener });
    }
    if ((token.type === 'double-quoted-scalar' || token.type === 'single-quoted-scalar') && typeof token.offset === 'number' && typeof token.source === 'string') {
      const quote = token.source[0]!;
      const body = token.source.slice(1);
      // '' is a quote inside single quotes, \" inside double ones.
      const closed = quote === "'" ? trailing(body, "'") % 2 === 1 : body.endsWith('"') && trailing(body.slice(0, -1), '\\') % 2 === 0;
      if (!closed) found.push({ offset: token.offset, opener: quote });
    }
    for (const value of Object.values(node)) if (typeof value === 'object') visit(value, depth + 1);
  };
  try {
    for (const token of new (yaml().Parser)().parse(text)) visit(token, 0);
  } catch {
    // The token tree is a help for the report only.
  }
  return found.sort((a, b) => a.offset - b.offset);
}

/**
 * True unless the line is surely outside `mcp.tokens`: it does not mention `tokens` or `sha256`,
 * and every earlier line that does has had its block closed (a line as little indented as it)
 * before this one. A broken file may have a token on a line of its own, indented anyhow.
 */
function underTokens(lines: readonly string[], index: number): boolean {
  const mentions = (line: string): boolean => /tokens|sha256/i.test(line);
  const indentOf = (line: string): number => line.length - line.trimStart().length;
  const meaningful = (line: string): boolean => line.trim() !== '' && !line.trimStart().startsWith('#');
  if (mentions(lines[index] ?? '')) return true;
  let open: number | undefined;
  for (let i = 0; i < index; i++) {
    const line = lines[i]!;
    if (!meaningful(line)) continue;
    if (open !== undefined && indentOf(line) <= open && !mentions(line)) open = undefined;
    if (mentions(line)) open = Math.min(open ?? Number.POSITIVE_INFINITY, indentOf(line));
  }
  return open !== undefined;
}

/** Longest value a fix quotes back; a longer one is only named. */
const QUOTED_CHARS = 120;

/**
 * The scalar the character at `col` (0-based) is part of, in flow or block style, quoted and
 * after its key when it is a value (`operation-name: "GET /users/{id}/orders"`): a line to paste.
 * `withColons` keeps `: ` inside it (a value that a flow mapping cut at its colon).
 */
function quotedScalarAround(line: string, col: number, withColons = false): string | undefined {
  let start = col;
  while (start > 0) {
    const before = line[start - 1]!;
    if (before === ',' || ((before === '{' || before === '[') && (start - 1 === 0 || /[\s,{[:]/.test(line[start - 2]!)))) break;
    if (before === ' ' && line[start - 2] === ':' && !withColons) break;
    if (before === '-' && start - 1 === line.length - line.trimStart().length) break;
    if (withColons && start === col && before === ' ' && line[start - 2] === ':') break;
    start--;
  }
  let end = col;
  let depth = 0;
  for (; end < line.length; end++) {
    const ch = line[end]!;
    if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && (ch === ',' || (ch === '#' && line[end - 1] === ' '))) break;
    else if (depth === 0 && !withColons && ch === ':' && (line[end + 1] === ' ' || end + 1 === line.length)) break;
  }
  const value = line.slice(start, end).trim();
  if (value === '' || value.length > QUOTED_CHARS) return undefined;
  // The key before it: after the last flow boundary, or the line's indentation (and a list's "- ").
  const before = /^(.*?):\s*$/.exec(line.slice(0, start));
  const key = before
    ? before[1]!
        .split(/[{,[]/)
        .pop()!
        .replace(/^\s*(-\s+)?/, '')
        .trim()
    : undefined;
  return key && key.length <= QUOTED_CHARS ? `${key}: ${JSON.stringify(value)}` : JSON.stringify(value);
}

/** The offending line, cut around the column, with a caret under it. */
function excerpt(lineText: string, lineNumber: number, col: number): string[] {
  const chars = [...lineText];
  let from = Math.max(0, col - Math.floor(EXCERPT_CHARS / 2));
  const to = Math.min(chars.length, from + EXCERPT_CHARS);
  from = Math.max(0, Math.min(from, to - EXCERPT_CHARS));
  const before = `${from > 0 ? '…' : ''}${escapeUnprintable(chars.slice(from, col).join(''))}`;
  const shown = `${before}${escapeUnprintable(chars.slice(col, to).join(''))}${to < chars.length ? '…' : ''}`;
  const gutter = String(lineNumber);
  return [`  ${gutter} | ${shown}`, `  ${' '.repeat(gutter.length)} | ${' '.repeat(before.length)}^`];
}

/** The likely fix, by the parser's code, its message and the text at the caret. */
function fixFor(code: string, message: string, at: string, quoted: string | undefined, unclosed: Unclosed | undefined): string {
  const quoteIt = quoted ? `quote it: ${quoted}` : 'quote it';
  if (unclosed && (unclosed.opener === '"' || unclosed.opener === "'")) return `the ${unclosed.opener} opened here is never closed: add the closing ${unclosed.opener} at the end of the value`;
  if (unclosed) {
    const closer = unclosed.opener === '{' ? '}' : ']';
    return `the "${unclosed.opener}" here starts a flow ${unclosed.opener === '{' ? 'mapping' : 'list'} that is never closed: add the "${closer}", or, if the "${unclosed.opener}" belongs to the value, ${quoteIt}`;
  }
  if (code === 'TAB_AS_INDENT' || at === '\t') return 'YAML indents with spaces only: replace the tab(s) at the start of this line with spaces';
  if ((at === '{' || at === '[' || at === '}' || at === ']') && (code === 'UNEXPECTED_TOKEN' || code === 'MISSING_CHAR'))
    return `a "${at}" inside a name or value in a flow mapping ({ ... }) or list ([ ... ]) is read as YAML syntax: ${quoteIt}, or write the mapping in block style (one key per line)`;
  if (code === 'BLOCK_IN_FLOW') return `inside { } or [ ], ": " ends a key: ${quoteIt}, or write the mapping in block style (one key per line)`;
  if (code === 'BLOCK_AS_IMPLICIT_KEY' && /compact/.test(message)) return 'two "key: " on one line: put the inner key on a line of its own, indented under the outer one, or quote the whole value';
  if (code === 'BAD_INDENT' && /same column/.test(message)) return 'indent this key with the same number of spaces as the keys beside it';
  if (code === 'BAD_SCALAR_START') return `a plain value cannot start with "${at}": ${quoteIt}`;
  if (code === 'MULTILINE_IMPLICIT_KEY' || (code === 'MISSING_CHAR' && /map values/.test(message)))
    return 'this line is not "key: value" (a colon then a space): add the colon, or indent the line further if it continues the value above';
  if (code === 'BAD_INDENT' || code === 'UNEXPECTED_TOKEN' || code === 'BLOCK_AS_IMPLICIT_KEY')
    return 'check the indentation here (spaces only, a child deeper than its parent) and quote names and values that contain { } [ ] , : # & * ! | > \' " % @ `';
  return 'quote names and values that contain { } [ ] , : # & * ! | > \' " % @ `, and indent with spaces only';
}

export function describeYamlError(text: string, errors: readonly YAMLError[], lineCounter: LineCounter): YamlErrorReport {
  const first = errors[0]!;
  // An unclosed collection or quote is reported where the file ends; point at where it opened.
  const unclosed = /end with a [\]}]|Missing closing/.test(first.message) ? unclosedOpeners(text).find((u) => u.offset <= first.pos[0]) : undefined;
  const offset = unclosed?.offset ?? first.pos[0];
  const { line, col } = lineCounter.linePos(offset);
  const lines = text.split('\n');
  const lineText = (lines[line - 1] ?? '').replace(/\r$/, '');
  // `col` counts UTF-16 units, as strings index; the excerpt counts characters.
  const codePoint = lineText.codePointAt(col - 1);
  const at = codePoint === undefined ? '' : String.fromCodePoint(codePoint);
  const hidden = underTokens(lines, line - 1);
  const quoted = hidden ? undefined : quotedScalarAround(lineText, col - 1, first.code === 'BLOCK_IN_FLOW');
  const detail = hidden ? [`  ${line} | (not shown: it is under svc.mcp.tokens, which is never printed)`] : excerpt(lineText, line, [...lineText.slice(0, col - 1)].length);
  detail.push(`  fix: ${fixFor(first.code, first.message, at, quoted, unclosed)}`);
  if (errors.length > 1) detail.push(`  (${errors.length - 1} more YAML error(s) after this one; they often go once this one is fixed)`);
  const what = sourceFreeMessage(first.message, first.code, text);
  return { line, col, message: `invalid YAML: ${what}`, detail };
}
