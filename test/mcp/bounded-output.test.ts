/**
 * The paging and cutting helpers behind every tool's bounded answer: pages hold what fits, take
 * problems first and each list in turn, never lose or repeat an item; cuts respect UTF-8 and say
 * what they cut; the last-resort bound cuts text and leaves out structured content.
 */
import { describe, expect, it } from 'vitest';
import { incidentResponseFromConfig } from '../../src/incidents/incident-response.js';
import {
  boundToolResult,
  byteLength,
  callFor,
  cutBlock,
  cutField,
  cutText,
  maxOutputBytes,
  moreMarker,
  type PagePlan,
  pageArgument,
  pageJson,
  pageText,
  planPages,
  sizeList,
  startWithin,
} from '../../src/mcp/bounded-output.js';
import { toolServices } from '../../src/mcp/start-tool-server.js';
import { ColumnLines, columns } from '../../src/mcp/text-layout.js';
import { ToolError } from '../../src/mcp/tool-definition.js';
import { ServiceMetadata } from '../../src/metadata/service-metadata.js';
import { engineHarness } from '../support/engine-harness.js';
import { newRegistry } from '../support/registry.js';
import { configOf } from './large-state.js';

/** A plan's figures, its page count read. */
const figures = (plan: PagePlan | undefined) => plan && { page: plan.page, pages: plan.pages, ranges: plan.ranges };

describe('planPages', () => {
  it('fills each page with the next item of each list in turn, and every item lands on exactly one page', () => {
    const sizes = [Array<number>(10).fill(10), Array<number>(3).fill(10)].map(sizeList);
    const first = planPages(sizes, () => 50, 1)!;
    // a, b, a, b, a on page 1; b (the last of its list), a, a, a, a on page 2.
    expect(figures(first)).toEqual({
      page: 1,
      pages: 3,
      ranges: [
        { start: 0, end: 3 },
        { start: 0, end: 2 },
      ],
    });
    expect(planPages(sizes, () => 50, 2)!.ranges).toEqual([
      { start: 3, end: 7 },
      { start: 2, end: 3 },
    ]);
    const seen: number[][] = [[], []];
    for (let page = 1; page <= first.pages; page++) {
      const plan = planPages(sizes, () => 50, page)!;
      plan.ranges.forEach(({ start, end }, list) => {
        for (let i = start; i < end; i++) seen[list]!.push(i);
      });
    }
    expect(seen).toEqual([[...Array(10).keys()], [0, 1, 2]]);
    expect(planPages(sizes, () => 50, 4)).toBeUndefined();
  });

  it('takes the problems (rank 0) of every list before the rest of any', () => {
    // List 0 has two problems then healthy items; list 1 has one problem.
    const sizes = [
      [10, 10, 10, 10, 10],
      [10, 10, 10],
    ].map(sizeList);
    const ranks = [
      [0, 0, 1, 1, 1],
      [0, 1, 1],
    ];
    expect(planPages(sizes, () => 30, 1, ranks)!.ranges).toEqual([
      { start: 0, end: 2 },
      { start: 0, end: 1 },
    ]);
  });

  it('still takes one item when the first does not fit, so paging always moves on', () => {
    const plan = planPages([sizeList([100, 5])], () => 50, 1)!;
    expect(figures(plan)).toEqual({ page: 1, pages: 2, ranges: [{ start: 0, end: 1 }] });
  });

  it('sizes no item beyond the page asked for until the page count is read', () => {
    const asked: number[] = [];
    const list = {
      length: 100,
      sizeAt: (n: number) => {
        asked.push(n);
        return 10;
      },
    };
    const plan = planPages([list], () => 50, 2)!;
    expect(plan.ranges).toEqual([{ start: 5, end: 10 }]);
    expect(Math.max(...asked)).toBe(10);
    expect(plan.pages).toBe(20);
    expect(Math.max(...asked)).toBe(99);
  });

  it('has one empty page when there is nothing to list', () => {
    expect(figures(planPages([sizeList([]), sizeList([])], () => 10, 1))).toEqual({
      page: 1,
      pages: 1,
      ranges: [
        { start: 0, end: 0 },
        { start: 0, end: 0 },
      ],
    });
  });
});

describe('cuts', () => {
  it('cuts fields with a marker giving the full length, on one line', () => {
    expect(cutField('a\nb', 10)).toBe('a b');
    expect(cutField('x'.repeat(20), 5)).toBe('xxxxx… (20 characters, cut)');
    expect(cutBlock('line 1\nline 2', 100)).toBe('line 1\nline 2');
  });

  it('never splits a character, in UTF-8 bytes or surrogate pairs', () => {
    const text = '€'.repeat(10); // 3 bytes each
    expect(startWithin(text, 7)).toBe('€€');
    expect(cutBlock('a😀b', 2)).toBe('a… (4 characters, cut)');
    const cut = cutText('😀'.repeat(1000), 1024);
    expect(byteLength(cut)).toBeLessThanOrEqual(1024);
    expect(cut).not.toContain('\uFFFD');
    expect(cut).toMatch(/\n… \[cut: this answer has 4000 bytes; at most 1024 are shown \(svc\.mcp\.max-output-bytes\)\]$/);
  });
});

describe('arguments and markers', () => {
  it('accepts page numbers from 1 and says what to send otherwise', () => {
    expect(pageArgument(undefined)).toBe(1);
    expect(pageArgument(' 3 ')).toBe(3);
    for (const bad of ['0', '-1', 'two', '1.5']) expect(() => pageArgument(bad)).toThrow(ToolError);
    expect(() => pageArgument('0')).toThrow('page must be a whole number from 1 (omit it for 1); got "0"');
  });

  it('names the call for a page with the other arguments, quoted when needed', () => {
    expect(callFor('get_service_health')(2)).toBe('call get_service_health with page=2');
    expect(callFor('get_service_health', { format: 'json' })(3)).toBe('call get_service_health with format=json and page=3');
    expect(callFor('get_incident_context', { operation_name: 'GET /orders/{id}' })(2)).toBe('call get_incident_context with operation_name="GET /orders/{id}" and page=2');
    expect(callFor('get_incident_context', { operation_name: 'x'.repeat(300) })(2)).toBe('call get_incident_context with the same arguments and page=2');
    expect(moreMarker('operation', ['elevated', 'within baseline', 'within baseline'], 'call x with page=2')).toBe('… 3 more operations (1 elevated, 2 within baseline) left out; call x with page=2');
    expect(moreMarker(['dependency', 'dependencies'], ['healthy'], 'call x with page=2')).toBe('… 1 more dependency (1 healthy) left out; call x with page=2');
  });

  it('reads svc.mcp.max-output-bytes, 8192 by default', () => {
    const services = (yaml?: string) => {
      const config = configOf(yaml);
      const { engine } = engineHarness();
      const metadata = new ServiceMetadata(config, newRegistry());
      return toolServices(config, engine, metadata, incidentResponseFromConfig(config, engine, metadata));
    };
    expect(maxOutputBytes(services())).toBe(8192);
    expect(maxOutputBytes(services('mcp:\n  max-output-bytes: 2048\n'))).toBe(2048);
    expect(maxOutputBytes({})).toBe(8192);
    expect(() => configOf('mcp:\n  max-output-bytes: 100\n')).toThrow(/from 1024 to 1048576/);
  });
});

describe('pageText and pageJson', () => {
  const lines = Array.from({ length: 100 }, (_, i) => `item ${String(i).padStart(3, '0')} ${'.'.repeat(40)}`);
  const request = { tool: 't', maxBytes: 1024, page: 1, call: callFor('t') };
  const render = (shown: readonly (readonly string[])[]) => ['TITLE', ...shown[0]!.map((l) => `  ${l}`)].join('\n');

  it('answers unchanged when everything fits', () => {
    const { text, plan } = pageText({ ...request, maxBytes: 1_000_000 }, [{ noun: 'item', items: lines }], render);
    expect(text).toBe(render([lines]));
    expect(plan.pages).toBe(1);
    expect(() => pageText({ ...request, maxBytes: 1_000_000, page: 2 }, [{ noun: 'item', items: lines }], render)).toThrow('page 2 is past the last page of t: it has 1 page now; call t with page=1');
  });

  it('pages long lists within the bound, saying what is left out and what came before', () => {
    const first = pageText(request, [{ noun: 'item', items: lines }], render);
    expect(byteLength(first.text)).toBeLessThanOrEqual(1024);
    const shown = first.text.split('\n').filter((l) => l.startsWith('  item')).length;
    expect(shown).toBeGreaterThan(10);
    expect(first.text.split('\n').at(-1)).toBe(`  … ${100 - shown} more items left out; call t with page=2`);
    const second = pageText({ ...request, page: 2 }, [{ noun: 'item', items: lines }], render);
    expect(second.text.split('\n')[1]).toBe(`  … ${shown} items on page 1; this is page 2 of ${first.plan.pages}`);
    expect(second.text.split('\n')[2]).toBe(`  ${lines[shown]}`);
  });

  it('cuts an item longer than half a page', () => {
    const { text } = pageText(request, [{ noun: 'item', items: ['x'.repeat(5000), 'short'] }], render);
    expect(byteLength(text)).toBeLessThanOrEqual(1024);
    expect(text).toMatch(/x… \[cut: 5000 bytes in all\]\n {2}short/);
  });

  it('pages column lines built on demand exactly as the same lines built beforehand', () => {
    const rows = Array.from({ length: 100 }, (_, i) => [`GET /é-${'x'.repeat(i % 7)}`, `${i * 37} req`, i % 9 ? `p50 ${i}ms` : 'x'.repeat(700)]);
    const built = columns(rows, 60);
    for (const page of [1, 2, 3]) {
      const lazy = pageText({ ...request, page }, [{ noun: 'item', items: ColumnLines.measured(rows, 60) }], render);
      const eager = pageText({ ...request, page }, [{ noun: 'item', items: built }], render);
      expect(lazy.text).toBe(eager.text);
      expect(figures(lazy.plan)).toEqual(figures(eager.plan));
    }
    expect(pageText({ ...request, maxBytes: 1_000_000 }, [{ noun: 'item', items: ColumnLines.measured(rows, 60) }], render).text).toBe(render([built]));
  });

  it('pages JSON arrays with page, pages, leftOut and nextPage', () => {
    const items = lines.map((name, i) => ({ name, i }));
    const build = (page: number) => pageJson({ ...request, page }, [{ key: 'items', items }], ([shown], paging) => ({ title: 'T', ...paging, items: shown }));
    const first = build(1) as { page: number; pages: number; leftOut: { items: number }; nextPage: string | null; items: { i: number }[] };
    expect(byteLength(JSON.stringify(first, null, 2))).toBeLessThanOrEqual(1024);
    expect(first).toMatchObject({ page: 1, nextPage: '2' });
    expect(first.items[0]!.i).toBe(0);
    expect(first.leftOut.items).toBe(100 - first.items.length);
    const last = build(first.pages) as typeof first;
    expect(last.nextPage).toBeNull();
    expect(last.items.at(-1)!.i).toBe(99);
  });
});

describe('boundToolResult', () => {
  it('keeps a result within the bound as it is', () => {
    const result = { text: 'ok', structured: { a: 1 } };
    expect(boundToolResult(result, 1024)).toBe(result);
  });

  it('cuts long text with a marker and leaves out large structured content with a note', () => {
    const bounded = boundToolResult({ text: 'y'.repeat(5000), structured: { rows: 'z'.repeat(5000) } }, 1024);
    expect(byteLength(bounded.text)).toBeLessThanOrEqual(1024);
    expect(bounded.structured).toBeUndefined();
    expect(bounded.text).toContain('[cut: this answer has 5000 bytes; at most');
    expect(bounded.text).toMatch(/\n… \[structured content left out: 5011 bytes, more than svc\.mcp\.max-output-bytes \(1024\)\]$/);
  });

  it('leaves out structured content that is not JSON', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const bounded = boundToolResult({ text: 'ok', structured: cyclic }, 1024);
    expect(bounded.structured).toBeUndefined();
    expect(bounded.text).toContain('structured content left out: not serialisable as JSON');
  });
});
