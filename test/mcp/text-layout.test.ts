/**
 * The column layout every tool's lists use: each column but the last padded to its widest cell
 * (capped), two spaces apart, no trailing spaces.
 */
import { describe, expect, it } from 'vitest';
import { ColumnLines, columns } from '../../src/mcp/text-layout.js';

describe('columns', () => {
  it('pads every column but the last to its widest cell, two spaces apart', () => {
    expect(
      columns([
        ['GET /a', '3 req', 'p50 1.0ms'],
        ['GET /longer', '12 req', 'p50 20ms'],
      ]),
    ).toEqual(['GET /a       3 req   p50 1.0ms', 'GET /longer  12 req  p50 20ms']);
  });

  it('leaves a cell wider than the cap unpadded and pads the others to the cap', () => {
    expect(
      columns(
        [
          ['abcdefgh', 'x'],
          ['ab', 'y'],
        ],
        4,
      ),
    ).toEqual(['abcdefgh  x', 'ab    y']);
  });

  it('ends no line with spaces: an empty or blank last cell, a shorter row, an empty row', () => {
    expect(columns([['a', 'bb', ''], ['ccc', 'd ', 'e'], ['f'], []])).toEqual(['a    bb', 'ccc  d   e', 'f', '']);
  });
});

describe('ColumnLines', () => {
  it('sizes each line in UTF-8 bytes without building it, and builds it as columns does', () => {
    const rows = [
      ['GET /ünïcödé', '3 req', 'p50 1.0ms'],
      ['GET /longer-name-than-the-cap-of-twenty', '12 req', 'ELEVATED (p99 40ms vs baseline 8ms) ✗'],
      ['a', 'bb', ''],
      ['ccc', 'd ', 'e '],
      ['f'],
      [],
      ['名前', '1 req', 'idle'],
    ];
    const lines = ColumnLines.measured(rows, 20);
    expect(lines.length).toBe(rows.length);
    expect(rows.map((_, i) => lines.line(i))).toEqual(columns(rows, 20));
    for (let i = 0; i < rows.length; i++) expect(lines.bytes(i), `row ${i}`).toBe(Buffer.byteLength(lines.line(i), 'utf8'));
  });
});
