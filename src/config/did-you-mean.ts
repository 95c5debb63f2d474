/** Levenshtein distance, for "did you mean" suggestions on unknown keys. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The closest candidate within a third of the word's length (at least 2 edits), if any. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  let lower: string | undefined;
  for (const candidate of candidates) {
    // The distance is at least the difference in length: skip the quadratic work (a pasted 1 MB key).
    if (Math.abs(word.length - candidate.length) > limit) continue;
    const d = distance((lower ??= word.toLowerCase()), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
