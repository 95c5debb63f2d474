/**
 * Maps a page path to a route: the configured pattern it matches (`/orders/:id` matches
 * `/orders/42`, `/docs/*` matches `/docs/a/b`, `/cart` only `/cart`), the most specific first;
 * an unmatched path becomes a pattern of its own with ids replaced by `:id`, so routes stay few
 * however many orders there are. Pure: no DOM.
 */

/** Characters kept of an unmatched path. */
const MAX_ROUTE_CHARS = 128;
/** A path segment that names one item, not a kind of page: digits, UUIDs, long hex, or letters mixed with 3+ digits. */
const ID_SEGMENT = /^(\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}|(?=(?:.*\d){3})[\w-]{6,})$/i;

interface CompiledPattern {
  readonly pattern: string;
  readonly segments: readonly string[];
  readonly rest: boolean;
  /** Static segments count more than parameters: `/orders/new` beats `/orders/:id`. */
  readonly specificity: number;
}

function segmentsOf(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

export class RouteMatcher {
  private readonly patterns: readonly CompiledPattern[];

  constructor(patterns: readonly string[]) {
    this.patterns = patterns
      .map((pattern) => {
        const segments = segmentsOf(pattern);
        const rest = segments.at(-1) === '*';
        if (rest) segments.pop();
        const statics = segments.filter((s) => !s.startsWith(':')).length;
        return { pattern, segments, rest, specificity: statics * 2 + segments.length * 1 - (rest ? 0.5 : 0) };
      })
      .sort((a, b) => b.specificity - a.specificity);
  }

  /** The configured pattern `path` matches, or undefined. */
  match(path: string): string | undefined {
    const parts = segmentsOf(path);
    for (const p of this.patterns) {
      if (p.rest ? parts.length < p.segments.length : parts.length !== p.segments.length) continue;
      if (p.segments.every((s, i) => s.startsWith(':') || s === parts[i])) return p.pattern;
    }
    return undefined;
  }

  /** The route of a path: its pattern, else the path with ids as `:id`. */
  route(path: string): string {
    const matched = this.match(path);
    if (matched) return matched;
    const normalised = `/${segmentsOf(path)
      .map((s) => (ID_SEGMENT.test(s) ? ':id' : s))
      .join('/')}`;
    return normalised.length > MAX_ROUTE_CHARS ? normalised.slice(0, MAX_ROUTE_CHARS) : normalised;
  }
}
