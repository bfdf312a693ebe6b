// "did you mean …?" for a name typed wrong: a flag, a scenario key, a step, an event type.
// Written here rather than taken from a package: none of meterstack's dependencies offers one (the
// js-levenshtein some tool pulls into node_modules is no dependency of ours, and it counts two swapped
// letters, the commonest typo, as two edits).

/**
 * Edits between `a` and `b`: insertions, deletions, substitutions and swaps of two neighbouring
 * characters, each 1 (Damerau-Levenshtein, optimal string alignment).
 */
export function editDistance(a: string, b: string): number {
  // d[i][j]: edits between a's first i characters and b's first j.
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidates `word` most likely meant: the nearest (case aside), if near enough to be a typo (a
 * third of the word's length, at least 1, at most 3 edits), in the order given. None for a name that
 * is one of them.
 */
export function nearest(word: string, candidates: Iterable<string>): string[] {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string[] = [];
  let bestDistance = limit;
  for (const c of candidates) {
    if (c === word) return []; // a known name, no typo
    const dist = editDistance(word.toLowerCase(), c.toLowerCase());
    if (dist < bestDistance) {
      best = [c];
      bestDistance = dist;
    } else if (dist === bestDistance && !best.includes(c)) best.push(c);
  }
  return best;
}

/** The first of `nearest`. */
export const closest = (word: string, candidates: Iterable<string>): string | undefined =>
  nearest(word, candidates)[0];

/** ` (did you mean X?)`, ` (did you mean X or Y?)` when candidates are near `word`, else ''. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const near = nearest(word, candidates).slice(0, 3);
  if (near.length === 0) return '';
  const last = near.pop()!;
  return ` (did you mean ${near.length ? `${near.join(', ')} or ` : ''}${last}?)`;
}
