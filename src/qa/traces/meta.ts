// The trace header: how the replay meter starts (JSON Lines `{"trace":1,…}` first line, or CSV
// `# key: value` comment lines before the column header).

import { type MeterModel, MODELS, MODES, type Mode } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { didYouMean } from '../did-you-mean.ts';
import { DEFAULT_ZONE, isKnownZone } from './time.ts';
import type { TraceMeta } from './types.ts';

export const META_KEYS = [
  'zone',
  'device_id',
  'model',
  'mode',
  'balance',
  'eb_tariff',
  'dg_tariff',
  'active_tariff',
] as const;

type Fail = (field: string, msg: string) => Error;

function int(value: unknown, field: string, fail: Fail, min: number, max: number): number {
  const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min || n > max)
    throw fail(field, `must be an integer in ${min}..${max}, got ${JSON.stringify(value)}`);
  return n;
}

/** Reads known header keys from `o` (values may be strings, as in CSV comments). */
export function readMeta(o: Record<string, unknown>, fail: Fail): TraceMeta {
  const meta: TraceMeta = { zone: DEFAULT_ZONE };
  const str = (k: string) => (typeof o[k] === 'string' ? (o[k] as string).trim() : o[k]);
  if (o['zone'] !== undefined) {
    const z = str('zone');
    if (typeof z !== 'string' || !isKnownZone(z))
      throw fail('zone', `unknown time zone ${JSON.stringify(z)}`);
    meta.zone = z;
  }
  if (o['device_id'] !== undefined) {
    const d = str('device_id');
    if (typeof d !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(d))
      throw fail('device_id', 'must be 1-64 characters of A-Z a-z 0-9 _ . -');
    meta.deviceId = d;
  }
  if (o['model'] !== undefined) {
    const m = str('model');
    if (!MODELS.includes(m as MeterModel))
      throw fail('model', `must be one of ${MODELS.join(', ')}${didYouMean(String(m), MODELS)}`);
    meta.model = m as MeterModel;
  }
  if (o['mode'] !== undefined) {
    const m = str('mode');
    if (!MODES.includes(m as Mode))
      throw fail('mode', `must be one of ${MODES.join(', ')}${didYouMean(String(m), MODES)}`);
    meta.mode = m as Mode;
  }
  if (o['balance'] !== undefined)
    meta.balance = int(o['balance'], 'balance', fail, -100_000_000, 100_000_000);
  if (o['eb_tariff'] !== undefined) meta.ebTariff = int(o['eb_tariff'], 'eb_tariff', fail, 0, 100_000);
  if (o['dg_tariff'] !== undefined) meta.dgTariff = int(o['dg_tariff'], 'dg_tariff', fail, 0, 100_000);
  if (o['active_tariff'] !== undefined)
    meta.activeTariff = int(o['active_tariff'], 'active_tariff', fail, 1, 2) as 1 | 2;
  return meta;
}
