/**
 * The column layout every tool's lists use: each column but the last padded to its widest cell
 * (capped), two spaces apart, no trailing spaces.
 */
import { describe, expect, it } from 'vitest';
import { columns } from '../../src/mcp/text-layout.js';

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
