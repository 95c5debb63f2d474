/**
 * USD per million tokens, input and output, of the models `run.cost({ model, inputTokens,
 * outputTokens })` can price. The built-in table is the vendors' list prices for standard
 * (not batch, not cached, prompts up to 200K tokens) text tokens, read on 2026-11-22 from
 * platform.openai.com/docs/pricing, platform.claude.com/docs/en/about-claude/pricing and
 * ai.google.dev/gemini-api/docs/pricing. Prices change and contracts differ: an app sets its own
 * with `setModelPrice`, which overrides a built-in entry.
 *
 * A model name matches an entry exactly, or as the entry followed by a dated snapshot suffix
 * (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`) or `-latest`; the longest entry wins. Any
 * other suffix (`gpt-4o-audio-preview`) does not match: an unknown model is not priced (the call
 * records its tokens, adds no cost, and svc reports the model once on stderr).
 *
 * The table lives under a global symbol, so prices set through the app's copy of the API apply to
 * the preload's too. At most `MAX_MODELS` entries are set by the app.
 */

export interface ModelPrice {
  /** USD per million input (prompt) tokens. */
  readonly inputPerMillionUsd: number;
  /** USD per million output (completion) tokens. */
  readonly outputPerMillionUsd: number;
}

const price = (inputPerMillionUsd: number, outputPerMillionUsd: number): ModelPrice => Object.freeze({ inputPerMillionUsd, outputPerMillionUsd });

/** The built-in list prices (see the module comment for sources and date). */
export const BUILT_IN_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  // OpenAI
  'gpt-5': price(1.25, 10),
  'gpt-5-mini': price(0.25, 2),
  'gpt-5-nano': price(0.05, 0.4),
  'gpt-4.1': price(2, 8),
  'gpt-4.1-mini': price(0.4, 1.6),
  'gpt-4.1-nano': price(0.1, 0.4),
  'gpt-4o': price(2.5, 10),
  'gpt-4o-mini': price(0.15, 0.6),
  o3: price(2, 8),
  'o4-mini': price(1.1, 4.4),
  // Anthropic
  'claude-opus-4-5': price(5, 25),
  'claude-opus-4-1': price(15, 75),
  'claude-sonnet-4-5': price(3, 15),
  'claude-sonnet-4': price(3, 15),
  'claude-haiku-4-5': price(1, 5),
  'claude-3-5-haiku': price(0.8, 4),
  // Google
  'gemini-2.5-pro': price(1.25, 10),
  'gemini-2.5-flash': price(0.3, 2.5),
  'gemini-2.5-flash-lite': price(0.1, 0.4),
});

export const MAX_MODELS = 256;
const MAX_MODEL_NAME = 256;
const SNAPSHOT_SUFFIX = /^-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

interface PriceTable {
  readonly own: Map<string, ModelPrice>;
  /** Lookups by full model name, reset when a price is set (bounded like `own`). */
  readonly resolved: Map<string, ModelPrice | null>;
}

const KEY = Symbol.for('svc.model-prices');

function table(): PriceTable {
  const holder = globalThis as { [KEY]?: PriceTable };
  return (holder[KEY] ??= { own: new Map(), resolved: new Map() });
}

/**
 * Sets (or replaces) the price of a model, for `run.cost({ model, ... })`. Returns false, and
 * changes nothing, for a name longer than 256 characters, a negative or non-finite price, or a
 * new model beyond 256 set by the app.
 *
 * @example
 * setModelPrice('my-finetune', { inputPerMillionUsd: 3, outputPerMillionUsd: 12 });
 */
export function setModelPrice(model: string, modelPrice: ModelPrice): boolean {
  const { inputPerMillionUsd: input, outputPerMillionUsd: output } = modelPrice ?? {};
  const valid = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  if (typeof model !== 'string' || model.length === 0 || model.length > MAX_MODEL_NAME || !valid(input) || !valid(output)) return false;
  const { own, resolved } = table();
  if (!own.has(model) && own.size >= MAX_MODELS) return false;
  own.set(model, price(input, output));
  resolved.clear();
  return true;
}

/** The price `model` is charged at, or undefined when neither the app nor the built-in table prices it. */
export function modelPrice(model: string): ModelPrice | undefined {
  const { own, resolved } = table();
  const cached = resolved.get(model);
  if (cached !== undefined) return cached ?? undefined;
  const found = lookup(model, own);
  if (resolved.size >= MAX_MODELS) resolved.clear();
  resolved.set(model, found ?? null);
  return found;
}

function lookup(model: string, own: ReadonlyMap<string, ModelPrice>): ModelPrice | undefined {
  if (typeof model !== 'string') return undefined;
  const exact = own.get(model) ?? (Object.hasOwn(BUILT_IN_MODEL_PRICES, model) ? BUILT_IN_MODEL_PRICES[model] : undefined);
  if (exact) return exact;
  let best: { name: string; price: ModelPrice } | undefined;
  const consider = (name: string, candidate: ModelPrice) => {
    if (model.startsWith(name) && SNAPSHOT_SUFFIX.test(model.slice(name.length)) && (!best || name.length > best.name.length)) best = { name, price: candidate };
  };
  for (const [name, candidate] of own) consider(name, candidate);
  if (!best) for (const [name, candidate] of Object.entries(BUILT_IN_MODEL_PRICES)) consider(name, candidate);
  return best?.price;
}

/** USD for `inputTokens` and `outputTokens` at `modelPrice`. */
export function costUsd(p: ModelPrice, inputTokens: number, outputTokens: number): number {
  return (inputTokens * p.inputPerMillionUsd + outputTokens * p.outputPerMillionUsd) / 1_000_000;
}
