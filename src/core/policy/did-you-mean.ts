/**
 * The closest candidate to a mistyped key, or undefined when nothing is close enough to be a
 * useful suggestion. Case-insensitive Levenshtein distance; "close" is at most a third of the
 * word's length (and at least one edit).
 */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase();
  const limit = Math.max(1, Math.floor(needle.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    // Long inputs cannot be a typo of a short key; skip the quadratic work.
    if (Math.abs(candidate.length - needle.length) > limit) continue;
    const d = levenshtein(needle, candidate.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
    }
    previous = current;
  }
  return previous[b.length];
}
