// Seeded, random-access pseudo-randomness: the value for (seed, index, stream) depends on nothing else,
// so the load at a minute is the same whether it is computed live, in a backfill or in a test.
// Only 32-bit integer operations: bit-identical on every JS engine.

/** murmur3's 32-bit finaliser: a bijection on uint32 with full avalanche. */
function fmix32(h: number): number {
  let x = h >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A uint32 from (seed, index, stream). `stream` separates independent quantities drawn at the same index. */
export function hash32(seed: number, index: number, stream = 0): number {
  return fmix32(fmix32(seed ^ Math.imul(stream + 1, 0x9e3779b9)) ^ index);
}

/** A float in [0, 1) from (seed, index, stream). */
export function unitAt(seed: number, index: number, stream = 0): number {
  return hash32(seed, index, stream) / 4_294_967_296;
}

/** FNV-1a of a string's UTF-16 code units, as uint32: turns ids and SSIDs into seeds. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
