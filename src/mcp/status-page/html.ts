/**
 * HTML built by a tagged template that escapes every interpolated value, so nothing an agent,
 * an operation name or a browser sent becomes markup: only `Html` values (built the same way)
 * are inserted as they are.
 *
 * @example
 * html`<td>${operation}</td>`; // `<td>GET /a&lt;b&gt;</td>` for the operation `GET /a<b>`
 */
export class Html {
  constructor(readonly text: string) {}
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function render(part: Part): string {
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === undefined || part === null || part === false) return '';
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: readonly Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}
