// The pure parts of the Modbus bridge: float32 decoding (golden register words), the SDM120 register
// table, block planning, sample decoding, the availability rule and the refused operations.

import { describe, expect, it } from 'vitest';
import { encode } from '../../firmware-protocol/mqtt/codec.ts';
import type { MeterCommand } from '../../firmware-protocol/mqtt/vocabulary.ts';
import {
  FAILURES_BEFORE_OFFLINE,
  INITIAL_LINK,
  type LinkState,
  nextLink,
  type PollOutcome,
} from '../../src/bridge/modbus/availability.ts';
import { answerTimeoutMs } from '../../src/bridge/modbus/index.ts';
import { infoOf, planCommand, stateOf, UNSUPPORTED } from '../../src/bridge/modbus/profile.ts';
import {
  type BlockWords,
  decodeReadings,
  float32FromWords,
  float32ToDecimal,
  readBlocks,
  SDM120_REGISTERS,
  sampleOf,
} from '../../src/bridge/modbus/registers.ts';

/** Register words (high word first) and the float32 they hold: usable by anyone writing an SDM120 reader. */
const GOLDEN: readonly { words: [number, number]; value: number; decimal: number; note: string }[] = [
  { words: [0x4366, 0x0000], value: 230, decimal: 230, note: '230 V' },
  { words: [0x40a6, 0x6666], value: 5.199999809265137, decimal: 5.2, note: '5.2 A' },
  { words: [0x448f, 0xd000], value: 1150.5, decimal: 1150.5, note: '1150.5 W' },
  { words: [0xc3a4, 0x4000], value: -328.5, decimal: -328.5, note: 'negative (exported / capacitive) var' },
  { words: [0x3f76, 0x45a2], value: 0.9620000123977661, decimal: 0.962, note: 'power factor 0.962' },
  {
    words: [0xbf76, 0x45a2],
    value: -0.9620000123977661,
    decimal: -0.962,
    note: 'power factor, reverse current',
  },
  { words: [0x449a, 0x5000], value: 1234.5, decimal: 1234.5, note: '1234.5 kWh' },
  { words: [0x0000, 0x0000], value: 0, decimal: 0, note: 'zero' },
  {
    words: [0x4b3c, 0x614e],
    value: 12345678,
    decimal: 12345680,
    note: 'past 7 digits: float32 cannot hold it',
  },
];

describe('float32 from two registers, high word first (Eastron word order)', () => {
  it.each(GOLDEN)('$note: [$words] → $value', ({ words, value, decimal }) => {
    expect(float32FromWords(words[0], words[1])).toBe(value);
    expect(float32ToDecimal(float32FromWords(words[0], words[1]))).toBe(decimal);
  });

  it('swapped words give another number: the order matters', () => {
    expect(float32FromWords(0x0000, 0x4366)).not.toBe(230);
  });

  it('NaN and infinities pass through float32ToDecimal untouched, for the caller to refuse', () => {
    expect(float32ToDecimal(float32FromWords(0x7fc0, 0x0000))).toBeNaN();
    expect(float32ToDecimal(float32FromWords(0x7f80, 0x0000))).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('the SDM120 register table', () => {
  it('maps the manual’s input registers to the contract’s properties [MC-4.3]', () => {
    expect(SDM120_REGISTERS.map((r) => [r.address, r.property, r.unit])).toEqual([
      [0x0000, 'voltage', 'V'],
      [0x0006, 'current', 'A'],
      [0x000c, 'active_power', 'W'],
      [0x0012, 'apparent_power', 'VA'],
      [0x0018, 'reactive_power', 'VAr'],
      [0x001e, 'power_factor', ''],
      [0x0156, 'energy', 'kWh'],
    ]);
  });

  it('covers exactly the properties a full meter declares', () => {
    const declared = infoOf('X', 10_000)
      .properties.map((p) => p.property_id)
      .sort();
    expect(SDM120_REGISTERS.map((r) => r.property).sort()).toEqual(declared);
  });

  it('is read in two requests: the live values in one, total energy in another', () => {
    expect(readBlocks(SDM120_REGISTERS)).toEqual([
      { start: 0x0000, count: 0x20 },
      { start: 0x0156, count: 2 },
    ]);
  });

  it('never plans a request over the 60-register limit', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({
      address: i * 2,
      name: `r${i}`,
      unit: '',
      property: 'voltage' as const,
    }));
    const blocks = readBlocks(many);
    expect(blocks.every((b) => b.count <= 60)).toBe(true);
    expect(blocks.reduce((n, b) => n + b.count, 0)).toBe(80);
  });
});

/** Block words holding `values` by address, as a meter would answer. */
function wordsFor(values: Record<number, [number, number]>): BlockWords {
  const live = new Array<number>(0x20).fill(0);
  for (const [address, [hi, lo]] of Object.entries(values)) {
    if (Number(address) < 0x20) {
      live[Number(address)] = hi;
      live[Number(address) + 1] = lo;
    }
  }
  const energy = values[0x0156] ?? [0, 0];
  return new Map([
    [0x0000, live],
    [0x0156, [...energy]],
  ]);
}

const METER_WORDS: Record<number, [number, number]> = {
  0: [0x4366, 0x0000],
  6: [0x40a6, 0x6666],
  12: [0x448f, 0xd000],
  18: [0x4495, 0x8000], // 1196 VA
  24: [0xc3a4, 0x4000],
  30: [0x3f76, 0x45a2],
  342: [0x449a, 0x5000],
};

describe('decoding a poll into a contract sample [MC-7.4]', () => {
  it('gives every property in contract units, balance 0, and encodes as telemetry', () => {
    const decoded = decodeReadings(SDM120_REGISTERS, wordsFor(METER_WORDS));
    expect(decoded).toEqual({
      ok: true,
      values: {
        voltage: 230,
        current: 5.2,
        active_power: 1150.5,
        apparent_power: 1196,
        reactive_power: -328.5,
        power_factor: 0.962,
        energy: 1234.5,
      },
    });
    if (!decoded.ok) return;
    const sample = sampleOf(decoded.values, 1_732_270_000_000);
    expect(sample.balance).toBe(0);
    expect(() => encode('telemetry', { v: 1, samples: [sample] })).not.toThrow();
  });

  it('refuses a register that was not read, naming it', () => {
    const words = new Map([[0x0000, new Array<number>(0x20).fill(0)]]);
    expect(decodeReadings(SDM120_REGISTERS, words)).toEqual({
      ok: false,
      error: '0x0156 Total active energy: not read',
    });
  });

  it.each([
    ['NaN voltage', 0x0000, [0x7fc0, 0x0000], '0x0000 Voltage: NaN is not a finite number'],
    ['negative current', 0x0006, [0xc0a6, 0x6666], '0x0006 Current: -5.2 is negative'],
    ['power factor above 1', 0x001e, [0x3fc0, 0x0000], '0x001E Power factor: 1.5 is outside [-1, 1]'],
    ['negative energy', 0x0156, [0xbf80, 0x0000], '0x0156 Total active energy: -1 is negative'],
  ] as const)('refuses %s [MC-3.7, MC-7.4]', (_name, address, words, error) => {
    const decoded = decodeReadings(SDM120_REGISTERS, wordsFor({ ...METER_WORDS, [address]: [...words] }));
    expect(decoded).toEqual({ ok: false, error });
  });

  it('accepts negative active power and power factor: the meter exporting', () => {
    const decoded = decodeReadings(
      SDM120_REGISTERS,
      wordsFor({ ...METER_WORDS, 12: [0xc48f, 0xd000], 30: [0xbf76, 0x45a2] }),
    );
    expect(decoded.ok && [decoded.values.active_power, decoded.values.power_factor]).toEqual([
      -1150.5, -0.962,
    ]);
  });
});

describe('availability from poll outcomes [MC-6.6]', () => {
  const run = (outcomes: PollOutcome[]): LinkState => outcomes.reduce(nextLink, INITIAL_LINK);

  it.each<[string, PollOutcome[], boolean]>([
    ['starts offline', [], false],
    ['online after one answer', ['success'], true],
    ['stays online through fewer failures than the limit', ['success', 'failure', 'failure'], true],
    ['offline after the limit of failures in a row', ['success', 'failure', 'failure', 'failure'], false],
    ['a success resets the count', ['success', 'failure', 'failure', 'success', 'failure', 'failure'], true],
    ['offline at once when the port is gone', ['success', 'port_gone'], false],
    ['online again with the first answer', ['success', 'port_gone', 'failure', 'success'], true],
  ])('%s', (_name, outcomes, online) => {
    expect(run(outcomes).online).toBe(online);
  });

  it('the limit is 3', () => {
    expect(FAILURES_BEFORE_OFFLINE).toBe(3);
  });
});

describe('what a full meter without a relay reports and refuses', () => {
  it('info: model full, no relay, the full catalogue, the poll period [MC-4.2]', () => {
    const info = infoOf('SDM-1', 10_000);
    expect(info).toMatchObject({ model: 'full', has_relay: false, telemetry_period_s: 10 });
    expect(() => encode('info', info)).not.toThrow();
  });

  it('state: measurement, relay closed, no money, no gateway, wired [MC-5.2, MC-5.3]', () => {
    const state = stateOf(1_000);
    expect(state).toEqual({
      ts: 1_000,
      mode: 'measurement',
      relay_commanded: true,
      relay_state: true,
      eb_tariff: 0,
      dg_tariff: 0,
      active_tariff: 1,
      balance: 0,
      pg_enabled: false,
      wifi_type: 'Primary',
    });
    expect(() => encode('state', { v: 1, ...state })).not.toThrow();
  });

  const refused: MeterCommand[] = [
    { op: 'set_relay', on: false },
    { op: 'set_mode', mode: 'prepaid' },
    { op: 'set_tariff', slot: 'eb', paise: 800 },
    { op: 'set_active_tariff', tariff: 2 },
    { op: 'set_gateway', enabled: true },
    { op: 'set_wifi', ssid: 'home', password: 'secret12' },
    { op: 'get_wifi' },
    { op: 'recharge', amount: 100, transactionId: 'tx-1' },
  ];

  it.each(refused)('$op is unsupported, with a message saying why [MC-8.3, MC-8.7]', (command) => {
    const plan = planCommand(command);
    expect(plan).toEqual({
      kind: 'reply',
      reply: {
        ok: false,
        error: { code: 'unsupported', message: UNSUPPORTED[command.op as keyof typeof UNSUPPORTED] },
      },
    });
    if (plan.kind === 'reply' && !plan.reply.ok) {
      expect(plan.reply.error.message).toMatch(/^SDM120 has no /);
      expect(plan.reply.error.message.length).toBeLessThanOrEqual(512); // [MC-8.5]
    }
  });

  it('read is the one op it performs', () => {
    expect(planCommand({ op: 'read' })).toEqual({ kind: 'read' });
  });
});

describe('answer timeout', () => {
  it('always covers the longest exchange on the wire at the factory 2400 baud', () => {
    // 77 bytes of 10 bits at 2400 baud = 321 ms, plus 100 ms turnaround.
    expect(answerTimeoutMs(2400, 200)).toBe(421);
    expect(answerTimeoutMs(2400, 10_000)).toBe(1_000);
    expect(answerTimeoutMs(9600, 200)).toBe(181);
  });
});
