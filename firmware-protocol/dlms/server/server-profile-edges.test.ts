// Profile edges: the billing profile of a fresh meter and of one past its first billing date [AS-4.6,
// AS-3.8, CO-7.5], and one-row profiles read by entry [AS-4.5]. On billing:
// a reader of every object (Gurux's stops at the first data-access-result other than read-write-denied)
// reads an empty billing buffer, 0 entries in use, and a value in every billing register.
import { describe, expect, it } from 'vitest';
import type { Sample } from '../../mqtt/vocabulary.ts';
import { decodeApdu } from '../apdu/apdu.ts';
import type { Data } from '../apdu/data.ts';
import { OBIS } from '../cosem/obis.ts';
import { ask, associated, hex, NOW, view } from './test-helpers.ts';

const invoke = { id: 2, confirmed: true, highPriority: true };
const MIN = 60_000;
/** 00:00 IST on 1 November 2026: the billing date that closes October. */
const NOV_1_IST = Date.UTC(2026, 10, 1) - 330 * MIN;

const sample = (ts: number, energy: number): Sample => ({
  ts,
  energy,
  active_power: 1000,
  voltage: 230,
  balance: 50_000,
});

function get(classId: number, instance: string, attributeId: number, history: Sample[], access?: object) {
  const v = view({ history });
  const r = ask(
    associated('reader', 1200, v),
    {
      type: 'get-request-normal',
      invoke,
      attribute: { classId, instance, attributeId },
      ...(access ? { access } : {}),
    } as never,
    v,
  );
  if (r.kind !== 'reply') throw new Error('not a reply');
  return r.apdu;
}

function data(apdu: Uint8Array): Data {
  const d = decodeApdu(apdu);
  if (!d.ok || d.value.type !== 'get-response-normal' || d.value.result.kind !== 'data')
    throw new Error(`no data: ${hex(apdu)}`);
  return d.value.result.data;
}

const byEntry = (first: number, last: number) => ({
  selector: 2,
  parameters: {
    type: 'structure',
    items: [
      { type: 'double-long-unsigned', value: first },
      { type: 'double-long-unsigned', value: last },
      { type: 'long-unsigned', value: 1 },
      { type: 'long-unsigned', value: 0 },
    ],
  },
});

describe('the billing profile [AS-4.6, AS-3.8]', () => {
  const fresh = [sample(NOW, 100)]; // one sample: the meter just started

  it('[AS-4.6] a fresh meter: the buffer is an empty array and entries_in_use 0, by any access', () => {
    expect(hex(get(7, OBIS.billingProfile, 2, fresh))).toBe('C401C2000100');
    expect(hex(get(7, OBIS.billingProfile, 7, fresh))).toBe('C401C2000600000000');
    expect(hex(get(7, OBIS.billingProfile, 2, fresh, byEntry(1, 1)))).toBe('C401C2000100');
  });

  it('[AS-3.8, CO-7.5] a fresh meter: the billing registers read the month so far (unity PF with no VAh yet)', () => {
    expect(data(get(3, OBIS.billingPowerFactor, 2, fresh))).toEqual({ type: 'long', value: 1000 });
    expect(data(get(3, OBIS.billingPowerOnMinutes, 2, fresh))).toMatchObject({ value: 0 });
  });

  it('[AS-4.6, CO-7.5] past a billing date: the closed month is a row; the running one is not', () => {
    // October's last two minutes, then November up to now: one closed month.
    const h = [sample(NOV_1_IST - 2 * MIN, 90), sample(NOV_1_IST - MIN, 90.017), sample(NOW, 100)];
    const rows = data(get(7, OBIS.billingProfile, 2, h));
    expect(rows.type === 'array' && rows.items.length).toBe(1);
    const row = rows.type === 'array' ? rows.items[0] : undefined;
    // The billing date 2026-11-01 00:00 at +05:30 (deviation -330: FE B6), then October's kWh register.
    expect(row?.type === 'structure' && row.items[0]).toEqual({
      type: 'octet-string',
      value: Uint8Array.from(Buffer.from('07EA0B0107000000 00FEB600'.replace(' ', ''), 'hex')),
    });
    expect(row?.type === 'structure' && row.items[2]).toEqual({
      type: 'double-long-unsigned',
      value: 90_017,
    });
    expect(hex(get(7, OBIS.billingProfile, 7, h))).toBe('C401C2000600000001');
    // The billing power-on register runs on into November: the minutes its samples span so far.
    expect(data(get(3, OBIS.billingPowerOnMinutes, 2, h))).toMatchObject({
      value: Math.round((NOW - (NOV_1_IST - MIN)) / MIN),
    });
  });
});

describe('one-row profiles by entry [AS-4.5]', () => {
  const h = [sample(NOW, 100)];
  it.each([
    ['a scaler profile', OBIS.instantaneousScaler],
    ['the name plate profile', OBIS.namePlate],
    ['the instantaneous profile', OBIS.instantaneousProfile],
  ])('%s: entry 1 is its row, entry 2 and on are none', (_name, obis) => {
    const whole = data(get(7, obis, 2, h));
    expect(whole.type === 'array' && whole.items.length).toBe(1);
    expect(data(get(7, obis, 2, h, byEntry(1, 1)))).toEqual(whole);
    expect(data(get(7, obis, 2, h, byEntry(1, 0)))).toEqual(whole);
    expect(hex(get(7, obis, 2, h, byEntry(2, 0)))).toBe('C401C2000100');
    expect(hex(get(7, obis, 2, h, byEntry(2, 5)))).toBe('C401C2000100');
  });
});
