/**
 * Small formatting helpers shared by the tools' text layouts, one per layout element, so the
 * fifteen tools read alike and change in one place.
 */
import type { OperationBaseline } from '../analysis/operation-baseline.js';

/** `42.0ms`, `1.25s`: latencies with a unit. */
export function ms(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return 'n/a';
  if (value >= 1000) return `${(value / 1000).toFixed(2)}s`;
  return `${value < 10 ? value.toFixed(1) : Math.round(value)}ms`;
}

/** `2.50%` for a fraction 0.025. */
export function percent(fraction: number | undefined, digits = 2): string {
  return fraction === undefined || Number.isNaN(fraction) ? 'n/a' : `${(fraction * 100).toFixed(digits)}%`;
}

/** `3.2x` for a multiple. */
export function multiple(value: number | undefined): string {
  return value === undefined || Number.isNaN(value) ? 'n/a' : `${value.toFixed(1)}x`;
}

/** `+12.5%` / `-3.0%`: a signed relative change from `from` to `to`. */
export function signedChange(from: number, to: number): string {
  if (from === 0) return to === 0 ? '+0.0%' : 'n/a';
  const change = ((to - from) / from) * 100;
  return `${change >= 0 ? '+' : ''}${change.toFixed(1)}%`;
}

/** A value with its baseline: `120ms (baseline 40ms)`. */
export function withBaseline(value: string, baseline: string | undefined): string {
  return baseline === undefined ? value : `${value} (baseline ${baseline})`;
}

/**
 * A figure with its baseline figure and where that comes from, as every tool quotes it:
 * `60ms (baseline 2.0ms, learned over 6 h)`, `2.0ms (baseline learning (3 samples))`,
 * `12.0% (baseline not judged (expected-error-rate: -1))`.
 */
export function againstBaseline(value: string, baseline: OperationBaseline | undefined, figure: 'p50' | 'p99' | 'errorRate', format: (n: number) => string): string {
  if (!baseline) return value;
  const base = figure === 'p50' ? baseline.latencyP50Ms : figure === 'p99' ? baseline.latencyP99Ms : baseline.errorRate;
  const source = baseline.describe(figure === 'p50' ? baseline.p50Source : figure === 'p99' ? baseline.p99Source : baseline.errorRateSource);
  return base === undefined ? `${value} (baseline ${source})` : `${value} (baseline ${format(base)}, ${source})`;
}

/** A section: its title on a line, then its lines indented by two spaces. */
export function section(title: string, lines: readonly string[], empty = 'none'): string {
  return [title, ...(lines.length ? lines : [empty]).map((line) => `  ${line}`)].join('\n');
}

/** `Label: value` lines, aligned. */
export function fields(entries: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(0, ...entries.map(([label]) => label.length)) + 1;
  return entries.map(([label, value]) => `${`${label}:`.padEnd(width + 1)}${value}`);
}

/** Joins blocks with blank lines between them. */
export function blocks(...parts: readonly (string | undefined | false)[]): string {
  return parts.filter((p): p is string => typeof p === 'string' && p.length > 0).join('\n\n');
}

export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** A header line of parts: `checkout | STATUS: DEGRADED | 2026-01-01T00:00:00.000Z`. */
export function headerLine(...parts: readonly string[]): string {
  return parts.join(' | ');
}

/** The lines of a list, each built when first sized or read: a page lays out only the lines it reaches. */
export interface Lines {
  readonly length: number;
  /** UTF-8 bytes of line `i`. */
  bytes(i: number): number;
  line(i: number): string;
}

/** Lines already built. */
export function builtLines(lines: readonly string[]): Lines {
  return { length: lines.length, bytes: (i) => Buffer.byteLength(lines[i]!, 'utf8'), line: (i) => lines[i]! };
}

/**
 * Rows of cells with every column but the last padded to its widest cell (at most `maxWidth`
 * characters: a longer cell is not padded), two spaces apart.
 */
export function columns(rows: readonly (readonly string[])[], maxWidth = Infinity): string[] {
  const lines = ColumnLines.measured(rows, maxWidth);
  return rows.map((_, i) => lines.line(i));
}

/**
 * Rows laid out in columns, every column but the last padded to its width (a wider cell is not
 * padded), two spaces apart, each row's cells and line made when the line is first sized or read:
 * a long list is paged on every call, and its page shows few rows.
 */
export class ColumnLines implements Lines {
  private readonly lines: (string | undefined)[] = [];

  /** `columns`, line by line: widths measured over every row. */
  static measured(rows: readonly (readonly string[])[], maxWidth = Infinity): ColumnLines {
    const widths: number[] = [];
    for (const row of rows) for (let i = 0; i < row.length; i++) widths[i] = Math.min(maxWidth, Math.max(widths[i] ?? 0, row[i]!.length));
    return new ColumnLines(rows.length, (i) => rows[i]!, widths);
  }

  constructor(
    readonly length: number,
    private readonly cellsOf: (row: number) => readonly string[],
    private readonly widths: readonly number[],
  ) {}

  /** A line is built when first sized: a page shows nearly every line it sizes. */
  bytes(i: number): number {
    return Buffer.byteLength(this.line(i), 'utf8');
  }

  line(i: number): string {
    return (this.lines[i] ??= this.build(this.cellsOf(i)));
  }

  private build(row: readonly string[]): string {
    const last = row.length - 1;
    let line = '';
    for (let c = 0; c < last; c++) line += row[c]! + spaces(Math.max(0, (this.widths[c] ?? 0) - row[c]!.length) + 2);
    if (last >= 0) line += row[last]!;
    return last < 0 || TRAILING_SPACE.test(row[last]!) ? line.trimEnd() : line;
  }
}

const TRAILING_SPACE = /(^|\s)$/;
const SPACES = ' '.repeat(128);

function spaces(count: number): string {
  return count <= SPACES.length ? SPACES.slice(0, count) : ' '.repeat(count);
}

const DURATION_UNITS: readonly (readonly [string, number])[] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/** `30d`, `6h`, `90m`, `45s`: a duration in its largest whole unit (else in ms). */
export function duration(durationMs: number): string {
  for (const [unit, size] of DURATION_UNITS) if (durationMs >= size && durationMs % size === 0) return `${durationMs / size}${unit}`;
  return ms(durationMs);
}

/** `1 SLO`, `3 SLOs`. */
export function plural(count: number, noun: string, nounPlural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nounPlural}`;
}

/** The first `limit` items, then how many more: `a, b, c and 7 more`. */
export function listSome(items: readonly string[], limit = 5): string {
  if (items.length === 0) return 'none';
  const shown = items.slice(0, limit).join(', ');
  return items.length > limit ? `${shown} and ${items.length - limit} more` : shown;
}

/** `12.5/min`: a rate per minute. */
export function perMinute(value: number | undefined): string {
  return value === undefined || Number.isNaN(value) ? 'n/a' : `${value.toFixed(1)}/min`;
}
