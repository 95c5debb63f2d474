/**
 * Bounded tool output: every tool's answer fits `svc.mcp.max-output-bytes` (8192 bytes of UTF-8
 * by default), whatever svc holds, so a thousand operations or an 8 KB session note cannot flood
 * an agent's context.
 *
 * - Lists are ordered worst first by the tools and paged here. A page takes the next item of each
 *   of the answer's lists in turn (one of each, then the next of each, ...) while it fits, so every
 *   list shows its worst items on page 1; items ranked as problems go before the rest of any list
 *   (get_service_health). A cut list ends with a line such as
 *   `… 940 more operations (3 elevated, 937 within baseline) left out; call get_service_health with page=2`,
 *   and on later pages starts with `… 40 operations on page 1; this is page 2 of 25`.
 * - JSON answers are paged the same way: their arrays are cut to fit, and `page`, `pages`,
 *   `leftOut` (per array, the items not on this page) and `nextPage` (null on the last) say so.
 * - Long single fields (a session entry, a reason, a result message, a name) are cut in display
 *   with a marker `… (8192 characters, cut)`.
 * - Last resort, for every tool result (custom tools too): text beyond the bound is cut with a
 *   marker; structured content beyond it is left out with a note in the text.
 */

import { INFERRED_ROUTE, isInferredOperationName } from '../shared/operation-name.js';
import { escapeUnprintable, hasControlCharacters } from '../shared/printable.js';
import { STORED_AGENT_NAME } from './input-limits.js';
import { builtLines, type Lines } from './text-layout.js';
import { ToolError, type ToolResult } from './tool-definition.js';
import type { ToolServices } from './tool-services.js';

export const DEFAULT_MAX_OUTPUT_BYTES = 8192;
/** The smallest bound the configuration accepts (svc.mcp.max-output-bytes). */
export const MIN_OUTPUT_BYTES = 1024;
/** Names (operations, dependencies, SLOs, actions) longer than this are cut in display. */
export const MAX_NAME_CHARS = 256;
/** Agent names shown in lines (session entries, the audit trail, echoes of the caller). */
export const MAX_AGENT_NAME_CHARS = STORED_AGENT_NAME;

/** The configured bound, `svc.mcp.max-output-bytes` (default 8192), resolved once with the services. */
export function maxOutputBytes(services: Partial<Pick<ToolServices, 'maxOutputBytes'>>): number {
  return services.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
}

export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

const encoder = new TextEncoder();

/** The longest start of `text` that takes at most `maxBytes` bytes of UTF-8, never splitting a character. */
export function startWithin(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  if (text.length * 3 <= maxBytes) return text;
  const { read } = encoder.encodeInto(text, new Uint8Array(maxBytes));
  return text.slice(0, read);
}

/** `text` cut at `maxChars` characters with a marker saying how long it was; newlines kept. */
export function cutBlock(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // do not split a surrogate pair
  return `${text.slice(0, end)}… (${text.length} characters, cut)`;
}

/** A one-line field: newlines become spaces, and text beyond `maxChars` is cut with a marker. */
export function cutField(text: string, maxChars: number): string {
  // Most fields (every operation name of every health read) need nothing: one test, no replace.
  if (text.length <= maxChars && !hasControlCharacters(text)) return text;
  return cutBlock(escapeUnprintable(text.replace(/\s*[\r\n]+\s*/g, ' ')), maxChars);
}

/** A name shown in a line: one line, at most MAX_NAME_CHARS characters. */
export function shownName(name: string, maxChars = MAX_NAME_CHARS): string {
  return cutField(name, maxChars);
}

/** An operation's name as a tool shows it alone (a title, a field): cut, and saying when its route was inferred. */
export function operationLabel(name: string): string {
  return isInferredOperationName(name) ? `${shownName(name)} (${INFERRED_ROUTE})` : shownName(name);
}

/** Whole text cut to `maxBytes` bytes with a marker at the end saying how much there was. */
export function cutText(text: string, maxBytes: number): string {
  const size = byteLength(text);
  if (size <= maxBytes) return text;
  const marker = `\n… [cut: this answer has ${size} bytes; at most ${maxBytes} are shown (svc.mcp.max-output-bytes)]`;
  return startWithin(text, maxBytes - byteLength(marker)) + marker;
}

/** An item of a list cut to `maxBytes` bytes, with a marker. */
function cutItem(text: string, maxBytes: number): string {
  const size = byteLength(text);
  if (size <= maxBytes) return text;
  const marker = `… [cut: ${size} bytes in all]`;
  return startWithin(text, maxBytes - byteLength(marker)) + marker;
}

/** How many characters a long field may show: a share of the bound (1/16: 512 characters of 8192 bytes). */
export function fieldChars(maxBytes: number, share = 16): number {
  return Math.max(64, Math.floor(maxBytes / share));
}

/** The `page` parameter of the tools that list things. */
export const PAGE = Object.freeze({
  type: 'string' as const,
  description: 'Page of a long answer: "1" (default), "2", ...; a cut answer names the call for the next page',
});

/** The `page` argument as a number from 1; a ToolError names what to send otherwise. */
export function pageArgument(value: string | undefined): number {
  const text = value?.trim() || '1';
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1) throw new ToolError(`page must be a whole number from 1 (omit it for 1); got "${cutField(value ?? '', 40)}"`);
  return Number(text);
}

/**
 * How to ask for a page: `call get_service_health with format=json and page=2`. Values that are
 * not plain words are quoted; arguments too long to repeat are referred to as "the same arguments".
 */
export function callFor(tool: string, args: Readonly<Record<string, string | undefined>> = {}): (page: number) => string {
  const given = Object.entries(args)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .map(([name, value]) => `${name}=${/^[\w.:/-]+$/.test(value) ? value : JSON.stringify(value)}`);
  const repeated = given.join(', ');
  const prefix = repeated.length > 200 ? 'the same arguments and ' : given.length ? `${repeated} and ` : '';
  return (page) => `call ${tool} with ${prefix}page=${page}`;
}

export interface PageRange {
  readonly start: number;
  readonly end: number;
}

export interface PagePlan {
  readonly page: number;
  /** Pages in all: read only when needed, as counting them sizes every item. */
  readonly pages: number;
  /** Per list, the items on this page. */
  readonly ranges: readonly PageRange[];
}

/** The sizes of a list's items, each asked for when the plan reaches it (in order, possibly more than once). */
export interface SizeList {
  readonly length: number;
  sizeAt(n: number): number;
}

export function sizeList(sizes: readonly number[]): SizeList {
  return { length: sizes.length, sizeAt: (n) => sizes[n]! };
}

/**
 * Splits lists of item sizes into pages of at most `budget(page)` bytes. Each page takes the next
 * item of each list in turn while it fits, first among the items of rank 0 (the problems), then
 * of rank 1, and so on; a list whose next item does not fit is done for that page. A page holds
 * at least one item, so every item is on some page. Undefined when `page` is past the last page.
 * Items after the page are sized only if `pages` is read.
 */
export function planPages(sizes: readonly SizeList[], budget: (page: number) => number, page: number, ranks: readonly (readonly number[] | undefined)[] = []): PagePlan | undefined {
  const next = sizes.map(() => 0);
  const remaining = () => sizes.some((list, i) => next[i]! < list.length);
  const distinct = new Set([0]);
  for (const list of ranks) for (let n = 0; n < (list?.length ?? 0); n++) distinct.add(list![n]!);
  const levels = [...distinct].sort((a, b) => a - b);
  let planned = 0;
  const planNext = (): PageRange[] => {
    planned++;
    const start = [...next];
    let left = budget(planned);
    const open = sizes.map((list, i) => next[i]! < list.length);
    let took = false;
    for (const level of levels) {
      for (let progress = true; progress; ) {
        progress = false;
        for (let i = 0; i < sizes.length; i++) {
          if (!open[i]) continue;
          if (next[i]! >= sizes[i]!.length) {
            open[i] = false;
            continue;
          }
          if ((ranks[i]?.[next[i]!] ?? 0) > level) continue;
          const size = sizes[i]!.sizeAt(next[i]!);
          if (size > left) {
            open[i] = false;
            continue;
          }
          left -= size;
          next[i]!++;
          progress = took = true;
        }
      }
    }
    if (!took) {
      const first = sizes.findIndex((list, i) => next[i]! < list.length);
      if (first >= 0) next[first]!++;
    }
    return start.map((s, i) => ({ start: s, end: next[i]! }));
  };
  let ranges: PageRange[] | undefined;
  do {
    const planning = planNext();
    if (planned === page) ranges = planning;
  } while (planned < page && remaining());
  if (!ranges) return undefined;
  let pages: number | undefined;
  return new CountedLater(page, ranges, () => {
    while (pages === undefined && remaining()) planNext();
    pages ??= planned;
    return pages;
  });
}

/**
 * A plan that counts its pages when first asked. A class: returned as an object literal with a
 * getter, V8 came to allocate get_service_health's per-call objects in the old generation
 * (150 KB a call, so a full collection every second of polling; measured with
 * v8.getHeapSpaceStatistics() and --no-allocation-site-pretenuring).
 */
class CountedLater implements PagePlan {
  constructor(
    readonly page: number,
    readonly ranges: readonly PageRange[],
    private readonly count: () => number,
  ) {}

  get pages(): number {
    return this.count();
  }
}

function pastLastPage(tool: string, page: number, pages: number, call: (page: number) => string): ToolError {
  return new ToolError(`page ${page} is past the last page of ${tool}: it has ${pages === 1 ? '1 page' : `${pages} pages`} now; ${pages > 1 ? `${call(1)} (up to page=${pages})` : call(1)}`);
}

type Noun = string | readonly [singular: string, plural: string];

function nounFor(noun: Noun, count: number): string {
  const [singular, plural] = typeof noun === 'string' ? [noun, `${noun}s`] : noun;
  return count === 1 ? singular : plural;
}

/** `… 40 operations on page 1; this is page 2 of 25`. */
export function earlierMarker(noun: Noun, count: number, page: number, pages: number): string {
  return `… ${count} ${nounFor(noun, count)} on ${page === 2 ? 'page 1' : `pages 1-${page - 1}`}; this is page ${page} of ${pages}`;
}

/** `… 940 more operations (3 elevated, 937 within baseline) left out; call get_service_health with page=2`. */
export function moreMarker(noun: Noun, kinds: readonly string[], call: string): string {
  const counts = new Map<string, number>();
  for (const kind of kinds) if (kind) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  const breakdown = counts.size ? ` (${[...counts].map(([kind, count]) => `${count} ${kind}`).join(', ')})` : '';
  return `… ${kinds.length} more ${nounFor(noun, kinds.length)}${breakdown} left out; ${call}`;
}

export interface PageRequest {
  readonly tool: string;
  readonly maxBytes: number;
  readonly page: number;
  /** The call that shows a page, from callFor(). */
  readonly call: (page: number) => string;
}

export interface TextListing {
  /** The noun for the markers: `operation` (plural `operations`) or [singular, plural]. */
  readonly noun: Noun;
  /** The items as shown (a line, or a group of lines), worst first; as `Lines`, only the ones a page shows are built. */
  readonly items: readonly string[] | Lines;
  /** Per item, a word for the breakdown of what is left out: `elevated`, `within baseline`. */
  readonly kinds?: readonly string[];
  /** Per item, 0 for a problem (ELEVATED, unhealthy, VIOLATED, ...), 1 for the rest: a page shows the problems of every list first. Default all 0. */
  readonly ranks?: readonly number[];
  /** Bytes the layout adds to each item: indentation and newline (default 3: two spaces and a newline). */
  readonly overhead?: number;
  /** Bytes to count per item instead of its text (for an answer that also carries the item as structured content). */
  readonly sizes?: readonly number[];
}

/** What a page shows of one list: the range of its items, and the markers around them. */
export interface ShownPart {
  readonly range: PageRange;
  /** `… 40 operations on page 1; this is page 2 of 25`, on pages after the first that hold later items. */
  readonly before?: string;
  /** `… 940 more operations ... left out; call ... page=2`, when items follow. */
  readonly after?: string;
}

/**
 * One page of a text answer with lists. `render` lays the answer out from the lines to show per
 * list (markers included; `parts` says which items and markers they are) and must not depend on
 * how many there are beyond them: it is also called with empty lists to measure the rest of the answer.
 */
export function pageText(
  request: PageRequest,
  listings: readonly TextListing[],
  render: (shown: readonly (readonly string[])[], parts: readonly ShownPart[]) => string,
): { text: string; plan: PagePlan } {
  const { tool, maxBytes, page, call } = request;
  const overheadOf = (l: TextListing) => l.overhead ?? 3;
  const lists = listings.map((l) => (Array.isArray(l.items) ? builtLines(l.items as readonly string[]) : (l.items as Lines)));
  const fixed = byteLength(
    render(
      listings.map(() => []),
      listings.map(() => ({ range: { start: 0, end: 0 } })),
    ),
  );
  const sized = (l: TextListing, n: number, bytes: number) => Math.max(bytes, l.sizes?.[n] ?? 0) + overheadOf(l);

  // The whole answer is laid out only when its items fit: a long list is not rendered just to be paged, nor all its items sized.
  if (fitsWhole(lists, listings, maxBytes - fixed, (i, n) => sized(listings[i]!, n, lists[i]!.bytes(n)))) {
    const whole = render(
      lists.map((lines) => Array.from({ length: lines.length }, (_, n) => lines.line(n))),
      lists.map((lines) => ({ range: { start: 0, end: lines.length } })),
    );
    if (byteLength(whole) <= maxBytes) {
      if (page > 1) throw pastLastPage(tool, page, 1, call);
      return { text: whole, plan: { page: 1, pages: 1, ranges: lists.map((lines) => ({ start: 0, end: lines.length })) } };
    }
  }

  // Room for the markers, measured with the largest numbers they can hold.
  const most = Math.max(
    1,
    lists.reduce((sum, lines) => sum + lines.length, 0),
  );
  const kindsOf = (l: TextListing, count: number) => l.kinds ?? new Array<string>(count).fill('');
  const after = listings.reduce((sum, l, i) => sum + (lists[i]!.length ? byteLength(moreMarker(l.noun, kindsOf(l, lists[i]!.length), call(most))) + overheadOf(l) : 0), 0);
  const before = listings.reduce((sum, l, i) => sum + (lists[i]!.length ? byteLength(earlierMarker(l.noun, lists[i]!.length, most, most)) + overheadOf(l) : 0), 0);
  const budget = (p: number) => maxBytes - fixed - after - (p > 1 ? before : 0);
  // No single item takes more than half a page: a longer one is cut, and sized as cut.
  const itemMax = Math.max(64, Math.floor(budget(2) / 2));
  const shownItem = (i: number, n: number) => cutItem(lists[i]!.line(n), itemMax);
  const sizes: SizeList[] = listings.map((l, i) => {
    const known: number[] = [];
    return {
      length: lists[i]!.length,
      sizeAt: (n) => {
        if (known[n] === undefined) {
          const bytes = lists[i]!.bytes(n);
          known[n] = sized(l, n, bytes > itemMax ? byteLength(shownItem(i, n)) : bytes);
        }
        return known[n];
      },
    };
  });
  const ranks = listings.map((l) => l.ranks);
  const plan = planPages(sizes, budget, page, ranks);
  if (!plan) throw pastLastPage(tool, page, planPages(sizes, budget, 1, ranks)!.pages, call);

  const parts: ShownPart[] = listings.map((l, i) => {
    const range = plan.ranges[i]!;
    return {
      range,
      ...(range.start > 0 && { before: earlierMarker(l.noun, range.start, plan.page, plan.pages) }),
      ...(range.end < lists[i]!.length && { after: moreMarker(l.noun, kindsOf(l, lists[i]!.length).slice(range.end), call(plan.page + 1)) }),
    };
  });
  const shown = parts.map(({ range, before, after }, i) => [
    ...(before ? [before] : []),
    ...Array.from({ length: range.end - range.start }, (_, n) => shownItem(i, range.start + n)),
    ...(after ? [after] : []),
  ]);
  return { text: cutText(render(shown, parts), maxBytes), plan };
}

/** Whether the items of every list take at most `room` bytes, sizing them only until they do not. */
function fitsWhole(lists: readonly Lines[], listings: readonly TextListing[], room: number, sizeOf: (list: number, item: number) => number): boolean {
  let left = room;
  for (let i = 0; i < listings.length; i++) for (let n = 0; n < lists[i]!.length; n++) if ((left -= sizeOf(i, n)) < 0) return false;
  return true;
}

export interface JsonListing {
  /** The array's key, as in `leftOut`. */
  readonly key: string;
  /** The items, worst first. */
  readonly items: readonly unknown[];
  /** As TextListing.ranks. */
  readonly ranks?: readonly number[];
}

export interface JsonPaging {
  readonly page: number;
  readonly pages: number;
  /** Per array, the items not on this page. */
  readonly leftOut: Readonly<Record<string, number>>;
  /** The page argument for the next page, null on the last. */
  readonly nextPage: string | null;
}

/** Strings longer than `maxChars` anywhere in `value`, cut with a marker. */
export function cutStrings(value: unknown, maxChars: number): unknown {
  if (typeof value === 'string') return cutBlock(value, maxChars);
  if (Array.isArray(value)) return value.map((v) => cutStrings(v, maxChars));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v, maxChars)]));
  return value;
}

/** Bytes an item takes in a pretty-printed array nested `indent` spaces deep, with its comma and newline. */
function prettySize(item: unknown, indent: number): number {
  const text = JSON.stringify(item, null, 2) ?? 'null';
  return byteLength(text) + indent * text.split('\n').length + 2;
}

/**
 * One page of a JSON answer whose arrays are lists: `render` builds the object from the items to
 * show per list and the paging fields. The answer is sized as pretty-printed JSON (the text the
 * tool returns), which is larger than the structured content.
 */
export function pageJson(
  request: PageRequest,
  listings: readonly JsonListing[],
  render: (shown: readonly (readonly unknown[])[], paging: JsonPaging) => Record<string, unknown>,
): Record<string, unknown> {
  const { tool, maxBytes, page, call } = request;
  const pretty = (value: unknown) => byteLength(JSON.stringify(value, null, 2));
  const most = Math.max(
    1,
    listings.reduce((sum, l) => sum + l.items.length, 0),
  );
  const pagingOf = (p: number, pages: number, ranges: readonly PageRange[]): JsonPaging => ({
    page: p,
    pages,
    leftOut: Object.fromEntries(listings.map((l, i) => [l.key, l.items.length - (ranges[i]!.end - ranges[i]!.start)])),
    nextPage: p < pages ? String(p + 1) : null,
  });
  const all = listings.map((l) => ({ start: 0, end: l.items.length }));
  const whole = render(
    listings.map((l) => l.items),
    pagingOf(1, 1, all),
  );
  if (pretty(whole) <= maxBytes) {
    if (page > 1) throw pastLastPage(tool, page, 1, call);
    return whole;
  }
  // The rest of the answer, with paging fields holding the largest numbers they can; empty arrays print shorter than full ones.
  const fixed =
    pretty(
      render(
        listings.map(() => []),
        { page: most, pages: most, leftOut: Object.fromEntries(listings.map((l) => [l.key, most])), nextPage: String(most) },
      ),
    ) +
    8 * listings.length;
  const budget = maxBytes - fixed;
  const itemMax = Math.max(64, Math.floor(budget / 2));
  const items = listings.map((l) =>
    l.items.map((item) => {
      let cut = cutStrings(item, 1024);
      for (let chars = 512; prettySize(cut, 4) > itemMax && chars >= 16; chars = Math.floor(chars / 2)) cut = cutStrings(item, chars);
      return cut;
    }),
  );
  const sizes = items.map((list) => list.map((item) => prettySize(item, 4)));
  // The sizes are estimates (nesting, the last item's comma): a page that comes out larger is planned again with less room.
  for (let slack = 0, attempt = 0; ; attempt++) {
    const ranks = listings.map((l) => l.ranks);
    const plan = planPages(sizes.map(sizeList), () => budget - slack, page, ranks);
    if (!plan) throw pastLastPage(tool, page, planPages(sizes.map(sizeList), () => budget - slack, 1, ranks)!.pages, call);
    const answer = render(
      items.map((list, i) => list.slice(plan.ranges[i]!.start, plan.ranges[i]!.end)),
      pagingOf(plan.page, plan.pages, plan.ranges),
    );
    const over = pretty(answer) - maxBytes;
    if (over <= 0 || attempt === 3) return answer;
    slack += over;
  }
}

/**
 * The last resort for any tool result: text beyond `maxBytes` is cut with a marker; structured
 * content whose JSON is beyond it is left out, with a note at the end of the text.
 */
export function boundToolResult(result: ToolResult, maxBytes: number): ToolResult {
  let structured = result.structured;
  let note = '';
  if (structured !== undefined) {
    let size: number;
    try {
      size = byteLength(JSON.stringify(structured) ?? '');
    } catch {
      size = Infinity;
    }
    if (size > maxBytes) {
      structured = undefined;
      note = `\n… [structured content left out: ${Number.isFinite(size) ? `${size} bytes, more than` : 'not serialisable as JSON within'} svc.mcp.max-output-bytes (${maxBytes})]`;
    }
  }
  const text = cutText(String(result.text ?? ''), maxBytes - byteLength(note)) + note;
  if (text === result.text && structured === result.structured) return result;
  return { ...result, text, structured };
}
