// A mode C readout's OBIS data sets as a contract sample [IEC-9.5]: which codes fill which property, in
// which units, and what a readout must hold to count. Pure. Rule numbers refer to
// firmware-protocol/iec62056-21/PROTOCOL.md (IEC-) and firmware-protocol/mqtt/CONTRACT.md (MC-).

import { type DataLine, parseObis } from '../../../firmware-protocol/iec62056-21/data-set.ts';
import type { MeterModel, Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { quantizeSample } from '../../../simulator/meter/index.ts';

type Quantity = 'energy' | 'power' | 'voltage' | 'current' | 'ratio';

/** Units as meters write them (case as written; `kvar` and `kVAr` both seen), to the contract's. */
const UNITS: Readonly<Record<Quantity, Readonly<Record<string, number>>>> = {
  energy: { kWh: 1, Wh: 0.001, MWh: 1000 },
  power: {
    kW: 1000,
    W: 1,
    MW: 1e6,
    kVA: 1000,
    VA: 1,
    kvar: 1000,
    kVAr: 1000,
    kVAR: 1000,
    var: 1,
    VAr: 1,
    VAR: 1,
  },
  voltage: { V: 1, kV: 1000 },
  current: { A: 1, mA: 0.001 },
  ratio: { '': 1 },
};

/** One OBIS value found in a readout, in the contract's unit; or why it cannot be used. */
type Found = { ok: true; value: number } | { ok: false; error: string } | null;

/** `C.D.E` → the first data set whose address is that code of the electricity medium (A absent or 1). */
function index(lines: readonly DataLine[]): Map<string, { value: string; unit?: string; address: string }> {
  const out = new Map<string, { value: string; unit?: string; address: string }>();
  for (const line of lines) {
    for (const set of line) {
      const obis = parseObis(set.address);
      if (!obis.ok || set.values.length === 0) continue;
      const { a, c, d, e } = obis.value;
      if ((a !== undefined && a !== 1) || d === undefined) continue;
      const key = `${c}.${d}.${e ?? 0}`;
      if (!out.has(key)) out.set(key, { ...set.values[0]!, address: set.address });
    }
  }
  return out;
}

export interface MappedReadout {
  /** [IEC-9.5] `full` when current, power factor, apparent and reactive power are all there, else `basic`. */
  model: MeterModel;
  sample: Sample;
}

/**
 * [IEC-9.5] The sample a readout gives at `ts`, at the declared model's resolutions [MC-7.7]; an error
 * naming the data set when energy, power or voltage is missing, or a value is not a number in a known unit
 * or breaks the contract's limits [MC-7.4]. `model` fixes the properties (the one declared in `info`).
 */
export function sampleOfReadout(
  lines: readonly DataLine[],
  ts: number,
  model?: MeterModel,
): { ok: true; value: MappedReadout } | { ok: false; error: string } {
  const sets = index(lines);
  const read = (code: string, q: Quantity): Found => {
    const set = sets.get(code);
    if (set === undefined) return null;
    const factor = UNITS[q][set.unit ?? ''];
    if (factor === undefined)
      return {
        ok: false,
        error: `${set.address}: unit ${set.unit ?? '(none)'} is not one of ${Object.keys(UNITS[q]).join(', ') || '(none)'}`,
      };
    const n = Number(set.value);
    if (set.value.trim() === '' || !Number.isFinite(n))
      return { ok: false, error: `${set.address}: ${JSON.stringify(set.value)} is not a number` };
    return { ok: true, value: n * factor };
  };
  const problems: string[] = [];
  const first = (...options: Found[]): number | undefined => {
    for (const f of options) {
      if (f === null) continue;
      if (!f.ok) {
        problems.push(f.error);
        return undefined;
      }
      return f.value;
    }
    return undefined;
  };
  const energy = first(read('1.8.0', 'energy'));
  const voltage = first(read('32.7.0', 'voltage'), read('12.7.0', 'voltage'));
  // Signed total first (16.7.0), else import less export, else L1 import.
  const imported = first(read('1.7.0', 'power'));
  const exported = first(read('2.7.0', 'power'));
  const net = imported === undefined ? undefined : imported - (exported ?? 0);
  const power = first(read('16.7.0', 'power')) ?? net ?? first(read('21.7.0', 'power'));
  const current = first(read('31.7.0', 'current'), read('11.7.0', 'current'));
  const pf = first(read('33.7.0', 'ratio'), read('13.7.0', 'ratio'));
  const apparent = first(read('9.7.0', 'power'), read('29.7.0', 'power'));
  const qImport = first(read('3.7.0', 'power'));
  const qExport = first(read('4.7.0', 'power'));
  const reactive = qImport === undefined ? first(read('23.7.0', 'power')) : qImport - (qExport ?? 0);
  if (problems.length > 0) return { ok: false, error: problems.join('; ') };
  if (energy === undefined) return { ok: false, error: 'no energy (1.8.0) in the readout' };
  if (voltage === undefined) return { ok: false, error: 'no voltage (32.7.0 or 12.7.0) in the readout' };
  if (power === undefined)
    return { ok: false, error: 'no active power (16.7.0, 1.7.0 or 21.7.0) in the readout' };
  const hasFull = [current, pf, apparent, reactive].every((v) => v !== undefined);
  const declared: MeterModel = model ?? (hasFull ? 'full' : 'basic');
  if (declared === 'full' && !hasFull) {
    return {
      ok: false,
      error: 'current, power factor, apparent or reactive power missing from a full meter',
    };
  }
  const sample: Sample = { ts, energy, active_power: power, voltage, balance: 0 };
  if (declared === 'full') {
    Object.assign(sample, { current, power_factor: pf, apparent_power: apparent, reactive_power: reactive });
  }
  const limit = limits(sample);
  if (limit !== null) return { ok: false, error: limit };
  return { ok: true, value: { model: declared, sample: quantizeSample(sample, declared) } };
}

/** [MC-7.4] What a sample's values may be. */
function limits(s: Sample): string | null {
  for (const key of ['energy', 'voltage', 'current', 'apparent_power'] as const) {
    const v = s[key];
    if (v !== undefined && v < 0) return `${key} ${v} is negative`;
  }
  if (s.power_factor !== undefined && (s.power_factor < -1 || s.power_factor > 1)) {
    return `power factor ${s.power_factor} is outside [-1, 1]`;
  }
  return null;
}
