/**
 * An exception as an error category: its type and its message with what varies from request to
 * request replaced by placeholders (`TypeError: Cannot read properties of undefined (reading
 * <str>)`), with the first stack frame in the app's own code, where it was thrown
 * (`UsersService.update (src/users.service.ts:31:40)`).
 *
 * Placeholders, in this order: a quoted value ('…', "…" or `…`) is `<str>`, a UUID `<uuid>`, a
 * hex value (0x…, or 8 or more hex digits with a digit and a letter) `<hex>`, an id (8 or more
 * letters, digits, `_` and `-`, with a letter and a digit) `<id>`, a number (`42`, `2.5`,
 * `10.0.0.7`) `<num>`.
 * Bounded: the first MAX_MESSAGE_READ characters of a message are read and MAX_MESSAGE_CHARS of
 * its normalised form kept; a frame is cut at MAX_FRAME_CHARS and a type at MAX_TYPE_CHARS.
 */

export const MAX_MESSAGE_READ = 1000;
export const MAX_MESSAGE_CHARS = 120;
export const MAX_FRAME_CHARS = 128;
export const MAX_TYPE_CHARS = 64;
/** Stack frames read for the app's first one: V8 records 10 by default. */
const MAX_FRAMES_READ = 32;

const QUOTED = /(?<!\w)(?:'[^']*'|"[^"]*"|`[^`]*`)/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const HEX = /\b(?:0x[0-9a-f]+|(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,})\b/gi;
const ID = /\b(?=[\w-]*\d)(?=[\w-]*[a-z])[\w-]{8,}\b/gi;
const NUMBER = /\b\d+(?:\.\d+)*\b/g;
const WHITESPACE = /\s+/g;

/** The message with what varies per request replaced by placeholders, on one line, bounded. */
export function normalisedMessage(message: string): string {
  const normalised = message
    .slice(0, MAX_MESSAGE_READ)
    .replace(WHITESPACE, ' ')
    .replace(QUOTED, '<str>')
    .replace(UUID, '<uuid>')
    .replace(HEX, '<hex>')
    .replace(ID, '<id>')
    .replace(NUMBER, '<num>')
    .trim();
  return cut(normalised, MAX_MESSAGE_CHARS);
}

/**
 * The first frame of a V8 stack trace in the app's own code (not under node_modules, not a
 * `node:` internal, not a native or anonymous location): `function (file:line:column)`, the file
 * relative to `cwd` when under it. Undefined when no frame is the app's.
 */
export function appFrameOf(stacktrace: string, cwd: string): string | undefined {
  let at = stacktrace.indexOf('\n    at ');
  for (let read = 0; at !== -1 && read < MAX_FRAMES_READ; read++) {
    const start = at + '\n    at '.length;
    const end = stacktrace.indexOf('\n', start);
    const frame = appFrame(stacktrace.slice(start, end === -1 ? undefined : end), cwd);
    if (frame) return cut(frame, MAX_FRAME_CHARS);
    at = end === -1 ? -1 : stacktrace.indexOf('\n    at ', end);
  }
  return undefined;
}

/** `fn (location)` or `location`, when the location is the app's code. */
function appFrame(frame: string, cwd: string): string | undefined {
  const open = frame.indexOf(' (');
  const named = open !== -1 && frame.endsWith(')');
  const location = named ? frame.slice(open + 2, -1) : frame;
  if (!/:\d+:\d+$/.test(location) || location.startsWith('node:') || location.includes('/node_modules/') || location.includes('\\node_modules\\')) return undefined;
  const file = relativeTo(location.startsWith('file://') ? pathOfFileUrl(location) : location, cwd);
  return named ? `${frame.slice(0, open)} (${file})` : file;
}

function pathOfFileUrl(url: string): string {
  const path = url.slice('file://'.length);
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

function relativeTo(path: string, cwd: string): string {
  const root = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(root) ? path.slice(root.length) : path;
}

export function cutType(type: string): string {
  return cut(type.replace(WHITESPACE, ' '), MAX_TYPE_CHARS);
}

function cut(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}
