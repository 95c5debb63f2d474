/**
 * Route templates inferred from request paths, for requests no framework named (a plain
 * `node:http` server, middleware that answers without a route). The rule (docs/telemetry.md
 * "Inferred routes"):
 * - a segment that looks like a value becomes a typed placeholder: `{param:int}` (digits),
 *   `{param:uuid}`, `{param:date}` (`2026-11-22`, with or without a time), `{param:hex}` (8 or
 *   more hex digits with at least one digit), `{param:token}` (20 characters or more, or 12 or
 *   more mixing letters and digits);
 * - any other segment is kept, until one position has seen more than `literalsPerPosition`
 *   distinct segments: that position is then a parameter, `{param:str}`, for every path under
 *   the same prefix, and the segments kept so far are forgotten;
 * - at most `maxSegments` segments are named; the rest of a longer path is `{param:rest}`.
 * The `{param:<kind>}` placeholders say the name was inferred, as Datadog's endpoint inference
 * does. The tree of positions holds at most `maxNodes` nodes; past that, unseen segments are
 * `{param:str}`. So names are bounded in count and in length.
 */

export interface RouteInferenceLimits {
  readonly literalsPerPosition: number;
  readonly maxNodes: number;
  readonly maxSegments: number;
}

export const DEFAULT_ROUTE_INFERENCE_LIMITS: RouteInferenceLimits = { literalsPerPosition: 25, maxNodes: 4000, maxSegments: 12 };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const HEX = /^[0-9a-f]{8,}$/i;
const DIGIT = /\d/;
const LETTER = /[a-z]/i;
const DIGITS = /^\d+$/;

/** The placeholder a segment stands for, or undefined when the segment reads as a literal. */
export function placeholderOf(segment: string): string | undefined {
  if (DIGITS.test(segment)) return '{param:int}';
  if (segment.length >= 10 && DIGIT.test(segment)) {
    if (UUID.test(segment)) return '{param:uuid}';
    if (DATE.test(segment)) return '{param:date}';
  }
  if (segment.length >= 8 && HEX.test(segment) && DIGIT.test(segment)) return '{param:hex}';
  if (segment.length >= 20 || (segment.length >= 12 && DIGIT.test(segment) && LETTER.test(segment))) return '{param:token}';
  return undefined;
}

interface Position {
  /** Literal segments seen here, each with the positions below it. */
  literals: Map<string, Position> | undefined;
  /** Placeholders (`{param:int}`, ...) seen here, each with the positions below it. */
  readonly placeholders: Map<string, Position>;
}

const COLLAPSED = '{param:str}';

function newPosition(): Position {
  return { literals: new Map(), placeholders: new Map() };
}

export class RouteInference {
  private readonly root = newPosition();
  private nodes = 1;

  constructor(private readonly limits: RouteInferenceLimits = DEFAULT_ROUTE_INFERENCE_LIMITS) {}

  /** `/users/42/orders/` → `/users/{param:int}/orders`. */
  templateOf(path: string): string {
    const segments = path.split('/');
    let end = segments.length;
    if (end > 1 && segments[end - 1] === '') end--;
    let template = '';
    let position = this.root;
    for (let i = 1; i < end; i++) {
      if (i > this.limits.maxSegments) return `${template}/{param:rest}`;
      const segment = segments[i] as string;
      const [name, next] = this.step(position, segment);
      template += `/${name}`;
      position = next;
    }
    return template === '' ? '/' : template;
  }

  private step(position: Position, segment: string): [string, Position] {
    const literals = position.literals;
    if (literals) {
      const known = literals.get(segment);
      if (known) return [segment, known];
    }
    const placeholder = placeholderOf(segment);
    if (placeholder) return [placeholder, this.child(position.placeholders, placeholder)];
    if (literals && literals.size < this.limits.literalsPerPosition && this.nodes < this.limits.maxNodes) return [segment, this.child(literals, segment)];
    if (literals && literals.size >= this.limits.literalsPerPosition) {
      // A parameter position: what was kept below its literals is forgotten with them.
      this.nodes -= countNodes(literals);
      position.literals = undefined;
    }
    return [COLLAPSED, this.child(position.placeholders, COLLAPSED)];
  }

  private child(children: Map<string, Position>, key: string): Position {
    let child = children.get(key);
    if (!child) {
      child = newPosition();
      if (this.nodes < this.limits.maxNodes) {
        children.set(key, child);
        this.nodes++;
      }
    }
    return child;
  }
}

function countNodes(children: Map<string, Position>): number {
  let count = 0;
  for (const child of children.values()) {
    count += 1 + (child.literals ? countNodes(child.literals) : 0) + countNodes(child.placeholders);
  }
  return count;
}
