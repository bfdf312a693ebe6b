// Exact decimal text -> scaled integers, so a trace's "10.02" kWh or "0.326" kW becomes an exact
// number of mW·ms or mW with no binary floating point in between (billing is exact, see
// simulator/meter/README.md "Units").

const DECIMAL = /^(-)?(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const SHORT = /^-?\d{1,12}(?:\.\d{0,3})?$/;

/** `text` × `factor`, rounded half away from zero; null when `text` is not a decimal number. */
export function scaleDecimal(text: string, factor: bigint): bigint | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const frac = m[3] ?? '';
  let digits = BigInt(m[2]! + frac) * factor;
  let scale = frac.length - Number(m[4] ?? 0);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  const div = 10n ** BigInt(scale);
  const q = (digits + div / 2n) / div;
  return m[1] ? -q : q;
}

/**
 * `text` × 10^`shift` (0..6) as an integer number, exact, e.g. watts "326.5" → 326500 mW with shift 3.
 * A number of at most 12 integer and 3 decimal digits takes a fast path (×1000 then rounding recovers
 * it exactly); anything else goes through scaleDecimal. Null when not a number.
 */
export function scaleToInt(text: string, shift: number): number | null {
  if (shift >= 3 && SHORT.test(text)) {
    return Math.round(Number(text) * 1000) * 10 ** (shift - 3);
  }
  const v = scaleDecimal(text, 10n ** BigInt(shift));
  return v === null ? null : Number(v);
}

/** A finite JSON/CSV number as decimal text, shortest round-trip form (what the writer meant). */
export function numberText(value: unknown): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value === 'string' && DECIMAL.test(value.trim())) return value.trim();
  return null;
}
