/** The price table run.cost() uses: built-in list prices, dated snapshots, the app's own prices. */
import { describe, expect, it } from 'vitest';
import { BUILT_IN_MODEL_PRICES, costUsd, MAX_MODELS, modelPrice, setModelPrice } from '../../src/agentic/model-prices.js';

describe('model prices', () => {
  it('prices built-in models and their dated snapshots, not other variants', () => {
    expect(modelPrice('gpt-4o-mini')).toEqual({ inputPerMillionUsd: 0.15, outputPerMillionUsd: 0.6 });
    expect(modelPrice('gpt-4o-mini-2024-07-18')).toBe(BUILT_IN_MODEL_PRICES['gpt-4o-mini']);
    expect(modelPrice('gpt-4o-2024-08-06')).toBe(BUILT_IN_MODEL_PRICES['gpt-4o']);
    expect(modelPrice('claude-sonnet-4-5-20250929')).toBe(BUILT_IN_MODEL_PRICES['claude-sonnet-4-5']);
    expect(modelPrice('claude-sonnet-4-20250514')).toBe(BUILT_IN_MODEL_PRICES['claude-sonnet-4']);
    expect(modelPrice('claude-3-5-haiku-latest')).toBe(BUILT_IN_MODEL_PRICES['claude-3-5-haiku']);
    expect(modelPrice('gpt-4o-audio-preview')).toBeUndefined();
    expect(modelPrice('constructor')).toBeUndefined();
    expect(modelPrice('toString')).toBeUndefined();
  });

  it('computes USD per million tokens', () => {
    expect(costUsd(BUILT_IN_MODEL_PRICES['claude-haiku-4-5']!, 2_000_000, 100_000)).toBeCloseTo(2.5, 10);
  });

  it('lets the app add and override prices, and refuses what it cannot use', () => {
    expect(setModelPrice('acme-llm', { inputPerMillionUsd: 1, outputPerMillionUsd: 4 })).toBe(true);
    expect(modelPrice('acme-llm-2026-05-01')).toEqual({ inputPerMillionUsd: 1, outputPerMillionUsd: 4 });
    expect(setModelPrice('gpt-4o', { inputPerMillionUsd: 2, outputPerMillionUsd: 8 })).toBe(true);
    expect(modelPrice('gpt-4o')).toEqual({ inputPerMillionUsd: 2, outputPerMillionUsd: 8 });
    expect(modelPrice('gpt-4o-2024-08-06')).toEqual({ inputPerMillionUsd: 2, outputPerMillionUsd: 8 });
    expect(setModelPrice('bad', { inputPerMillionUsd: -1, outputPerMillionUsd: 1 })).toBe(false);
    expect(setModelPrice('bad', { inputPerMillionUsd: Number.NaN, outputPerMillionUsd: 1 })).toBe(false);
    expect(setModelPrice('x'.repeat(257), { inputPerMillionUsd: 1, outputPerMillionUsd: 1 })).toBe(false);
    expect(modelPrice('bad')).toBeUndefined();
  });

  it('holds at most MAX_MODELS prices set by the app', () => {
    let accepted = 0;
    for (let i = 0; i < MAX_MODELS + 10; i++) if (setModelPrice(`bulk-${i}`, { inputPerMillionUsd: 1, outputPerMillionUsd: 1 })) accepted++;
    expect(accepted).toBeLessThanOrEqual(MAX_MODELS);
    expect(setModelPrice('acme-llm', { inputPerMillionUsd: 3, outputPerMillionUsd: 4 })).toBe(true);
  });
});
