// [M-16] A meter reports each value at the register resolution its model declares (readings.ts
// RESOLUTIONS, and `resolution` in `info` [MC-4.4]): energy to the Wh, power to 0.1 W, voltage to
// 0.01 V, current to 1 mA, power factor to 0.001. Rounding goes through integers (a whole number of
// steps divided by a power of ten), so the JSON says 942.242, never 942.2420000000001. Billing never
// sees these numbers: it stays exact in mW·ms and balance units.

import { MWMS_PER_KWH } from './types.ts';

const POW10 = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000];

/** The number of decimal places of a power-of-ten resolution (0.001 → 3, 1 → 0); throws for any other. */
export function placesOf(resolution: number): number {
  const places = POW10.findIndex((k) => resolution * k === 1);
  if (places < 0) throw new TypeError(`resolution must be 1, 0.1, 0.01, ... 1e-9, not ${resolution}`);
  return places;
}

/**
 * `x` rounded to `places` decimals (half away from zero) as the double nearest that decimal: an integer
 * count of steps divided by 10^places, which prints as the decimal itself. Never returns -0.
 */
export function roundTo(x: number, places: number): number {
  const k = POW10[places]!;
  const n = Math.round(Math.abs(x) * k);
  if (n === 0) return 0;
  return (x < 0 ? -n : n) / k;
}

/** mW·ms per Wh. */
const MWMS_PER_WH = Number(MWMS_PER_KWH) / 1000;
const HALF_WH_BIG = MWMS_PER_KWH / 2000n;
const WH_BIG = MWMS_PER_KWH / 1000n;
/**
 * Below 2^21 Wh (about 2,097 kWh) the double quotient e / 3.6e9 is within 2^-33 of the exact one, and the
 * exact one is either a tie (representable, so exact) or at least 1/3.6e9 away from one: Math.round
 * (half up) gives the exactly rounded Wh. Beyond, bigints.
 */
const FAST_LIMIT = 2 ** 21 * MWMS_PER_WH;

/** The energy register (mW·ms, >= 0) in kWh to the Wh, rounded half up, exactly. */
export function energyKwhAtWh(mwms: bigint): number {
  const e = Number(mwms);
  if (e < FAST_LIMIT) return Math.round(e / MWMS_PER_WH) / 1000;
  return Number((mwms + HALF_WH_BIG) / WH_BIG) / 1000;
}
