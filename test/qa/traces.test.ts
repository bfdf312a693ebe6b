// Trace formats (fixtures/README.md): CSV, JSON Lines, the UCI importer; and malformed input, each
// with an error naming the file, the line and the field.

import { describe, expect, it } from 'vitest';
import { MWMS_PER_KWH } from '../../simulator/meter/types.ts';
import { loadTrace, parseTrace } from '../../src/qa/traces/load.ts';
import type { Trace, TraceSample } from '../../src/qa/traces/types.ts';

const samples = (t: Trace) => t.entries.filter((e): e is TraceSample => e.kind === 'sample');
const events = (t: Trace) =>
  t.entries.filter((e) => e.kind === 'event').map((e) => (e.kind === 'event' ? e.event : null));
const IST = (wall: string) => Date.parse(`${wall}+05:30`);

function error(file: string, text: string): string {
  try {
    parseTrace(file, text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the trace to be refused');
}

describe('CSV traces', () => {
  it('integrates a power-only trace exactly: each power holds over the period since the previous sample', () => {
    const t = parseTrace(
      'p.csv',
      'ts,active_power,voltage\n2026-01-05T00:00:00,1000,230\n2026-01-05T00:01:00,500.5,231\n2026-01-05T00:03:00,2000,229\n',
    );
    expect(t.cumulative).toBe(false);
    expect(t.periodMs).toBe(60_000);
    // 1000 W over the first (usual) minute, 500.5 W over a minute, 2000 W over two minutes: in mW·ms, exact.
    expect(samples(t).map((s) => s.energy)).toEqual([
      1_000_000n * 60_000n,
      500_500n * 60_000n,
      2_000_000n * 120_000n,
    ]);
    expect(samples(t)[1]!.readings).toEqual({ active_power: 500.5, voltage: 231 });
    expect(t.firstTs).toBe(IST('2026-01-05T00:00:00'));
    expect(t.model).toBe('basic');
  });

  it('uses a cumulative energy register as given (exact decimal kWh), header settings and events', () => {
    const t = parseTrace(
      'e.csv',
      '# a comment\n# zone: UTC\n# mode: prepaid\n# balance: 5000\nts,energy_kwh,active_power_w,power_factor,event\n' +
        '2026-01-05T00:00:00Z,10.02,1200,0.9,\n2026-01-05T00:01:00,10.04,1180,,relay:off;mode:postpaid\n' +
        '2026-01-05T05:32:00+05:30,,,,recharge:5000:pay-1\n2026-01-05T00:03:00,10.04,0,,online\n',
    );
    expect(t.meta).toMatchObject({ zone: 'UTC', mode: 'prepaid', balance: 5000 });
    expect(t.firstTs).toBe(Date.parse('2026-01-05T00:00:00Z'));
    expect(t.openingEnergy).toBe(1002n * (MWMS_PER_KWH / 100n));
    expect(samples(t).map((s) => s.energy)).toEqual([0n, 2n * (MWMS_PER_KWH / 100n), 0n]);
    expect(t.model).toBe('full');
    // A row's sample comes before its events; an event-only row is just events.
    expect(events(t)).toEqual([
      { type: 'relay', on: false },
      { type: 'mode', mode: 'postpaid' },
      { type: 'recharge', amount: 5000, transactionId: 'pay-1' },
      { type: 'online' },
    ]);
    expect(t.entries.map((e) => e.line)).toEqual([6, 7, 7, 7, 8, 9, 9]);
  });

  it('reads the UCI household file: IST wall time, kW to mW exactly, 2,880 one-minute samples', async () => {
    const t = await loadTrace('fixtures/traces/uci-household-2007-02-01.csv');
    expect(t.format).toBe('uci');
    expect(t.sampleCount).toBe(2880);
    expect(t.firstTs).toBe(IST('2007-02-01T00:00:00'));
    expect(t.lastTs).toBe(IST('2007-02-02T23:59:00'));
    expect(samples(t)[0]).toMatchObject({
      energy: 326_000n * 60_000n,
      readings: { active_power: 326, reactive_power: 128, voltage: 243.15, current: 1.4 },
    });
    expect(t.model).toBe('full');
  });

  it('skips UCI rows whose values are missing (?)', () => {
    const header = 'datetime,global_active_power_kw,global_reactive_power_kw,voltage_v,global_intensity_a\n';
    const t = parseTrace(
      'u.csv',
      `${header}2007-02-01T00:00:00,0.326,0.128,243.150,1.400\n2007-02-01T00:01:00,?,?,?,?\n2007-02-01T00:02:00,0.3,0.1,240,1.2\n`,
    );
    expect(t.sampleCount).toBe(2);
    expect(t.skippedLines).toBe(1);
    expect(samples(t)[1]!.energy).toBe(300_000n * 120_000n);
  });
});

describe('JSON Lines traces', () => {
  it('reads a header, MQTT-shaped samples, a whole telemetry payload per line, and events', () => {
    const t = parseTrace(
      'j.jsonl',
      [
        '{"trace":1,"device_id":"MTR-J","eb_tariff":900}',
        '{"ts":1767551400000,"energy":1.5,"active_power":1200,"voltage":231.4,"balance":500}',
        '{"v":1,"samples":[{"ts":1767551460000,"energy":1.52,"active_power":1200,"voltage":231},{"ts":1767551520000,"energy":1.54,"active_power":1200,"voltage":230.9}]}',
        '{"ts":"2026-01-05T00:02:00","event":"relay","on":false}',
        '{"type":"bridge-log","text":"serial port reopened"}',
        '{"type":"sample","ts":"2026-01-05T00:03:00+05:30","energy":1.54,"active_power":0,"x_frame":"T 1 2"}',
        '',
      ].join('\n'),
    );
    expect(t.meta).toMatchObject({ deviceId: 'MTR-J', ebTariff: 900 });
    expect(t.sampleCount).toBe(4);
    expect(t.skippedLines).toBe(1);
    expect(samples(t).map((s) => s.energy)).toEqual([0n, MWMS_PER_KWH / 50n, MWMS_PER_KWH / 50n, 0n]);
    expect(events(t)).toEqual([{ type: 'relay', on: false }]);
  });

  it('the offline-gap fixture: events around a gap with no samples', async () => {
    const t = await loadTrace('fixtures/traces/offline-gap.jsonl');
    expect(events(t).map((e) => e?.type)).toEqual(['offline', 'online', 'recharge', 'active_tariff']);
    expect(t.sampleCount).toBe(300);
    expect(t.cumulative).toBe(true);
  });
});

describe('malformed traces are refused with the file, line and field', () => {
  it.each([
    [
      'a timestamp that is not a time',
      'ts,active_power\nyesterday,100\n',
      'b.csv:2: ts: cannot read "yesterday" as a time',
    ],
    [
      'a date that does not exist',
      'ts,active_power\n2026-02-30T00:00:00,100\n',
      'b.csv:2: ts: "2026-02-30T00:00:00" is not a valid date and time',
    ],
    [
      'an hour out of range',
      'ts,active_power\n2026-01-05T24:00:00,100\n',
      'b.csv:2: ts: "2026-01-05T24:00:00" is not a valid date',
    ],
    [
      'epoch seconds',
      'ts,active_power\n1767551400,100\n',
      'b.csv:2: ts: 1767551400 looks like epoch seconds',
    ],
    [
      'time going backwards',
      'ts,active_power\n2026-01-05T00:01:00,1\n2026-01-05T00:00:00,1\n',
      "b.csv:3: ts: 2026-01-04T18:30:00.000Z is before line 2's",
    ],
    [
      'a repeated sample time',
      'ts,active_power\n2026-01-05T00:01:00,1\n2026-01-05T00:01:00,1\n',
      "b.csv:3: ts: 2026-01-04T18:31:00.000Z is the same as line 2's",
    ],
    [
      'non-monotonic energy',
      'ts,energy\n2026-01-05T00:00:00,10.02\n2026-01-05T00:01:00,10.01\n',
      'b.csv:3: energy: 10.01 kWh is less than 10.02 kWh at line 2; cumulative energy never decreases [MC-7.5]',
    ],
    [
      'an unknown column',
      'ts,active_power,temperature\n2026-01-05T00:00:00,1,20\n',
      'b.csv:1: temperature: unknown column; known columns are ts, energy',
    ],
    ['no timestamp column', 'active_power\n1\n', 'b.csv:1: no timestamp column (ts)'],
    [
      'a number that is not one',
      'ts,active_power\n2026-01-05T00:00:00,lots\n',
      'b.csv:2: active_power: "lots" is not a number',
    ],
    [
      'a missing cell',
      'ts,active_power,voltage\n2026-01-05T00:00:00,1\n',
      'b.csv:2: 2 cells, the header has 3',
    ],
    [
      'energy on some samples only',
      'ts,energy,active_power\n2026-01-05T00:00:00,1,\n2026-01-05T00:01:00,,5\n',
      'b.csv:3: energy: missing; line 2 has energy',
    ],
    [
      'an unknown event',
      'ts,event\n2026-01-05T00:00:00,explode\n',
      'b.csv:2: event: unknown event "explode"',
    ],
    [
      'an event typed wrong: the one probably meant (SC-5)',
      'ts,event\n2026-01-05T00:00:00,rechrge:500\n',
      'b.csv:2: event: unknown event "rechrge:500" (did you mean recharge?)',
    ],
    [
      'a mode typed wrong: the one probably meant (SC-5)',
      '# mode: prepiad\nts,active_power\n2026-01-05T00:00:00,100\n',
      '(did you mean prepaid?)',
    ],
    ['no samples at all', 'ts,event\n2026-01-05T00:00:00,offline\n', 'b.csv: no samples'],
  ])('CSV: %s', (_what, text, message) => {
    expect(error('b.csv', text)).toContain(message);
  });

  it.each([
    ['not JSON', '{"ts":1767551400000,', 'b.jsonl:1: not JSON'],
    [
      'a bad timestamp',
      '{"ts":"2026-13-01T00:00:00","energy":1}',
      'b.jsonl:1: ts: "2026-13-01T00:00:00" is not a valid date and time',
    ],
    [
      'an unknown sample field',
      '{"ts":1767551400000,"energy":1,"enrgy":2}',
      'b.jsonl:1: enrgy: unknown field',
    ],
    [
      'a bad sample in a telemetry line',
      '{"v":1,"samples":[{"ts":1767551400000,"energy":1},{"ts":1767551460000,"energy":-1}]}',
      'b.jsonl:1: samples.1.energy: must be a number of kWh >= 0',
    ],
    [
      'non-monotonic energy',
      '{"ts":1767551400000,"energy":2}\n{"ts":1767551460000,"energy":1.5}',
      'b.jsonl:2: energy: 1.5 kWh is less than 2 kWh at line 1',
    ],
    [
      'a bad event argument',
      '{"ts":1767551400000,"energy":2}\n{"ts":1767551460000,"event":"relay","on":"yes"}',
      'b.jsonl:2: on: must be true or false',
    ],
    [
      'a header after samples',
      '{"ts":1767551400000,"energy":2}\n{"trace":1}',
      'b.jsonl:2: trace: the header must be the first line',
    ],
    ['an unknown header field', '{"trace":1,"colour":"red"}', 'b.jsonl:1: colour: unknown header field'],
    [
      'a sample with nothing measured',
      '{"ts":1767551400000,"voltage":230}',
      'b.jsonl:1: a sample needs energy (kWh) or active_power (W)',
    ],
  ])('JSON Lines: %s', (_what, text, message) => {
    expect(error('b.jsonl', text)).toContain(message);
  });
});

describe('bridge recordings (SP-9) play back with no conversion', () => {
  it('takes samples from the telemetry it published, events from state and availability', async () => {
    const t = await loadTrace('test/qa/fixtures/bridge-recording.jsonl');
    expect(t.meta.deviceId).toBe('MTR-SER-1');
    // The resent sample at …460000 counts once [MC-7.6].
    expect(samples(t).map((s) => s.ts)).toEqual([1767551400000, 1767551460000, 1767551520000]);
    expect(samples(t).map((s) => s.energy)).toEqual([0n, 167n * 360_000_000n, 0n]);
    expect(events(t)).toEqual([{ type: 'online' }, { type: 'relay', on: false }]);
    expect(t.skippedLines).toBe(5);
  });
});
