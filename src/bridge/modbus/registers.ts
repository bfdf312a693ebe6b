// The Eastron SDM120-Modbus register map as data, and the pure decoding of register words into a
// contract sample. Source: "Eastron SDM120Modbus Smart Meter Modbus Protocol Implementation V2.4"
// (see README.md for the citation and the checks made against it). No I/O here.

import type { Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { quantizeSample } from '../../../simulator/meter/index.ts';

/** The contract properties [MC-4.3] an SDM120 register can fill. */
export type MeterProperty =
  | 'energy'
  | 'active_power'
  | 'voltage'
  | 'current'
  | 'power_factor'
  | 'apparent_power'
  | 'reactive_power';

export interface RegisterDef {
  /** 0-based input register address (function code 0x04); the manual's 3X number minus 30001. */
  address: number;
  /** The manual's name of the parameter. */
  name: string;
  /** The manual's unit ('' for power factor). */
  unit: string;
  property: MeterProperty;
}

/**
 * Input registers read from an SDM120, each an IEEE 754 float32 in two registers, high word first.
 * Units already match the contract [MC-3.7]; the manual's "VAr" is the contract's "var".
 */
export const SDM120_REGISTERS: readonly RegisterDef[] = [
  { address: 0x0000, name: 'Voltage', unit: 'V', property: 'voltage' },
  { address: 0x0006, name: 'Current', unit: 'A', property: 'current' },
  { address: 0x000c, name: 'Active power', unit: 'W', property: 'active_power' },
  { address: 0x0012, name: 'Apparent power', unit: 'VA', property: 'apparent_power' },
  { address: 0x0018, name: 'Reactive power', unit: 'VAr', property: 'reactive_power' },
  { address: 0x001e, name: 'Power factor', unit: '', property: 'power_factor' },
  // Import + export (the manual's note); equal to import on a meter that never exports. See README.
  { address: 0x0156, name: 'Total active energy', unit: 'kWh', property: 'energy' },
];

/** One read request: `count` registers from `start` (function code 0x04). */
export interface ReadBlock {
  start: number;
  count: number;
}

/**
 * The requests that cover `registers`: neighbours closer than `maxGap` registers share one request, so
 * the six live values (0x0000..0x001F) come in one frame and total energy (0x0156) in another. The SDM120
 * answers at most 30 parameters (60 registers) per request; a block never grows past `maxCount`.
 */
export function readBlocks(registers: readonly RegisterDef[], maxGap = 16, maxCount = 60): ReadBlock[] {
  const sorted = [...registers].sort((a, b) => a.address - b.address);
  const blocks: ReadBlock[] = [];
  for (const r of sorted) {
    const last = blocks.at(-1);
    const end = r.address + 2;
    if (last && r.address - (last.start + last.count) <= maxGap && end - last.start <= maxCount) {
      last.count = Math.max(last.count, end - last.start);
    } else {
      blocks.push({ start: r.address, count: 2 });
    }
  }
  return blocks;
}

/** The float32 held in two registers, high word first (big-endian bytes and words, as Eastron sends it). */
export function float32FromWords(high: number, low: number): number {
  const buf = Buffer.alloc(4);
  buf.writeUInt16BE(high & 0xffff, 0);
  buf.writeUInt16BE(low & 0xffff, 2);
  return buf.readFloatBE(0);
}

/**
 * The decimal a person reads off the meter: a float32 carries about 7 significant digits, so 5.2 sent
 * as 0x40A66666 (5.19999980926...) is reported as 5.2. Non-finite values pass through for the caller.
 */
export function float32ToDecimal(value: number): number {
  return Number.isFinite(value) ? Number(value.toPrecision(7)) : value;
}

/** Register words that a block read returned, by start address. */
export type BlockWords = ReadonlyMap<number, readonly number[]>;

export type DecodeReadings =
  | { ok: true; values: Record<MeterProperty, number> }
  | { ok: false; error: string };

/**
 * The readings held in the words of `blocks` (keyed by block start). Fails, naming the register, when a
 * register is missing or does not hold a value the contract accepts [MC-3.7, MC-7.4].
 */
export function decodeReadings(registers: readonly RegisterDef[], blocks: BlockWords): DecodeReadings {
  const values = {} as Record<MeterProperty, number>;
  for (const r of registers) {
    const words = wordsAt(blocks, r.address);
    if (!words) return { ok: false, error: `${hex(r.address)} ${r.name}: not read` };
    const value = float32ToDecimal(float32FromWords(words[0], words[1]));
    const problem = checkValue(r.property, value);
    if (problem) return { ok: false, error: `${hex(r.address)} ${r.name}: ${problem}` };
    values[r.property] = value;
  }
  return { ok: true, values };
}

function wordsAt(blocks: BlockWords, address: number): [number, number] | null {
  for (const [start, words] of blocks) {
    const i = address - start;
    if (i >= 0 && i + 1 < words.length) return [words[i]!, words[i + 1]!];
  }
  return null;
}

/** Contract limits of a sample's fields [MC-7.4]. */
function checkValue(property: MeterProperty, value: number): string | null {
  if (!Number.isFinite(value)) return `${value} is not a finite number`;
  switch (property) {
    case 'energy':
    case 'voltage':
    case 'current':
    case 'apparent_power':
      return value < 0 ? `${value} is negative` : null;
    case 'power_factor':
      return value < -1 || value > 1 ? `${value} is outside [-1, 1]` : null;
    case 'active_power':
    case 'reactive_power':
      return null;
  }
}

/**
 * A contract sample [MC-7.4] of the readings at `ts`, at the resolutions the bridge declares in `info`
 * (those of the `full` model) [MC-4.4, MC-7.7]. An SDM120 keeps no balance: it is always 0.
 */
export function sampleOf(values: Record<MeterProperty, number>, ts: number): Sample {
  const sample: Sample = {
    ts,
    energy: values.energy,
    active_power: values.active_power,
    voltage: values.voltage,
    current: values.current,
    power_factor: values.power_factor,
    apparent_power: values.apparent_power,
    reactive_power: values.reactive_power,
    balance: 0,
  };
  return quantizeSample(sample, 'full');
}

export function hex(address: number): string {
  return `0x${address.toString(16).toUpperCase().padStart(4, '0')}`;
}
