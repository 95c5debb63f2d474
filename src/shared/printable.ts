/**
 * Text from outside (a config value, a header, an argument, an exception) made safe to print:
 * control and format characters escaped (no raw ESC, CR, bidi override reaches a terminal) and long
 * text cut, saying so. Every config message, `svc check` line and echo of an agent's input goes
 * through here.
 */

/** Values quoted in messages are cut to this many characters. */
export const VALUE_CHARS = 200;

// C0/C1 controls, format characters (bidi overrides, zero-width), line/paragraph separators,
// lone surrogates.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeCharacter(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.codePointAt(0)!;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/** Escapes unprintable characters and keeps at most `max` output characters; `quote` also escapes `"` and `\`. */
function escapeAndCut(text: string, max: number, quote: boolean): { text: string; cut: boolean } {
  let out = '';
  for (const char of text) {
    const piece = UNPRINTABLE.test(char) ? escapeCharacter(char) : quote && (char === '"' || char === '\\') ? `\\${char}` : char;
    if (out.length + piece.length > max) return { text: out, cut: true };
    out += piece;
  }
  return { text: out, cut: false };
}

/**
 * `text` with unprintable characters escaped, cut to `max` characters (`abc… (1048576 characters,
 * cut)`). Printable text that fits is returned as is.
 */
export function printable(text: string, max: number = VALUE_CHARS): string {
  if (text.length <= max && !UNPRINTABLE.test(text)) return text;
  const { text: shown, cut } = escapeAndCut(text, max, false);
  return cut ? `${shown}… (${text.length} characters, cut)` : shown;
}

/** `text` with unprintable characters escaped, whole. */
export function escapeUnprintable(text: string): string {
  return UNPRINTABLE.test(text) ? escapeAndCut(text, Number.POSITIVE_INFINITY, false).text : text;
}

/** Whether `text` holds a character `printable` would escape. */
export function hasControlCharacters(text: string): boolean {
  return UNPRINTABLE.test(text);
}

/** How a raw configuration value is shown in a message: strings quoted and cut to VALUE_CHARS, lists and mappings described. */
export function printableValue(raw: unknown): string {
  switch (typeof raw) {
    case 'string': {
      const { text, cut } = escapeAndCut(raw, VALUE_CHARS, true);
      return cut ? `"${text}…" (${raw.length} characters, cut)` : `"${text}"`;
    }
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(raw);
    case 'undefined':
      return 'nothing';
    case 'object':
      if (raw === null) return 'null';
      return Array.isArray(raw) ? `a list of ${raw.length} item(s)` : 'a mapping';
    default:
      return `a ${typeof raw}`;
  }
}
