// [PM-2] A label whose values come from outside (a refusal reason, a command op, a route of a 404) must
// not grow a series per value a hostile client invents: the first `max` distinct values are kept, every
// later one is counted as `other`. Pure.

export const OTHER = 'other';

export class BoundedLabel {
  readonly #seen = new Set<string>();
  readonly #max: number;

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new TypeError(`BoundedLabel: max must be ≥ 1, not ${max}`);
    this.#max = max;
  }

  /** `value` itself while fewer than `max` were seen (or it was seen), else `other`. */
  of(value: string): string {
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.#max) return OTHER;
    this.#seen.add(value);
    return value;
  }
}
