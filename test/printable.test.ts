/** Config text made safe for a terminal: escaped, cut with a note, unchanged when already safe. */
import { describe, expect, it } from 'vitest';
import { printable, printableValue } from '../src/shared/printable.js';

describe('printable', () => {
  it('escapes C0 and C1 controls, bidi and zero-width format characters, line separators and lone surrogates', () => {
    expect(printable('a\u001b[2Jb\r\n\t\u0000\u007f\u0085\u202e\u200b\u2028\ud800z', 100)).toBe('a\\x1b[2Jb\\r\\n\\t\\x00\\x7f\\x85\\u{202e}\\u{200b}\\u{2028}\\u{d800}z');
  });

  it('keeps printable unicode as it is', () => {
    expect(printable('naïve 日本 🚀 é', 100)).toBe('naïve 日本 🚀 é');
  });

  it('cuts to the bound, counting the escapes, and says how long the text was', () => {
    expect(printable('x'.repeat(50), 10)).toBe('xxxxxxxxxx… (50 characters, cut)');
    expect(printable('\u001b'.repeat(5), 10)).toBe('\\x1b\\x1b… (5 characters, cut)');
  });

  it('changes nothing the second time', () => {
    const once = printable(`\u001b${'y'.repeat(500)}`, 200);
    expect(printable(once, 300)).toBe(once);
  });
});

describe('printableValue', () => {
  it('quotes strings with quotes and backslashes escaped, and cuts them to 200 characters', () => {
    expect(printableValue('say "hi" \\ \u001b')).toBe('"say \\"hi\\" \\\\ \\x1b"');
    expect(printableValue('a'.repeat(1 << 20))).toBe(`"${'a'.repeat(200)}…" (1048576 characters, cut)`);
  });

  it('describes lists and mappings instead of printing them, and never throws', () => {
    expect([1.5, true, null, undefined, 10n, ['a', 'b'], { a: 1 }, Symbol('s'), () => 1].map(printableValue)).toEqual([
      '1.5',
      'true',
      'null',
      'nothing',
      '10',
      'a list of 2 item(s)',
      'a mapping',
      'a symbol',
      'a function',
    ]);
  });
});
