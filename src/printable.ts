/**
 * Values that came from outside (a header, an argument, a config value) made safe to put in a
 * message: control characters escaped, so nothing written to a terminal or a log can move the
 * cursor or forge a line, and long values cut, saying so.
 */

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

function escape(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Whether `value` holds a character `printable` would escape. */
export function hasControlCharacters(value: string): boolean {
  CONTROL.lastIndex = 0;
  return CONTROL.test(value);
}

/** `value` with control characters escaped and, beyond `max` characters, cut: `abc... (1048576 characters, cut)`. */
export function printable(value: string, max = 200): string {
  const cut = value.length > max ? `${value.slice(0, max)}... (${value.length} characters, cut)` : value;
  return cut.replace(CONTROL, escape);
}
