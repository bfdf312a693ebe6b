// The bridge's OBIS map [IEC-9.5], pure: readouts as real meters write them (and as ours does) to contract
// samples, and the readouts that must fail rather than give a guessed value.
import { describe, expect, it } from 'vitest';
import type { DataLine } from '../../firmware-protocol/iec62056-21/data-set.ts';
import { parseDataBlock } from '../../firmware-protocol/iec62056-21/data-set.ts';
import { sampleOfReadout } from '../../src/bridge/iec62056-21/obis-map.ts';

const lines = (block: string): DataLine[] => {
  const parsed = parseDataBlock(block);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
};
const TS = 1_764_000_000_000;

describe('[IEC-9.5] OBIS data sets to a contract sample', () => {
  it("our meter's readout: a full meter, units converted, at the full resolutions", () => {
    const r = sampleOfReadout(
      lines(
        'C.1.0(SN-1)\r\nF.F(00000000)\r\n1-0:1.8.0(001234.500*kWh)\r\n1-0:1.7.0(0001.1505*kW)\r\n' +
          '1-0:32.7.0(235.63*V)\r\n1-0:31.7.0(005.140*A)\r\n1-0:33.7.0(0.950)\r\n' +
          '1-0:9.7.0(0001.2111*kVA)\r\n1-0:3.7.0(0000.3782*kvar)\r\n',
      ),
      TS,
    );
    expect(r).toEqual({
      ok: true,
      value: {
        model: 'full',
        sample: {
          ts: TS,
          energy: 1234.5,
          active_power: 1150.5,
          voltage: 235.63,
          current: 5.14,
          power_factor: 0.95,
          apparent_power: 1211.1,
          reactive_power: 378.2,
          balance: 0,
        },
      },
    });
  });

  const basic: [string, string, Record<string, number>][] = [
    [
      'short forms, Wh and W (a household meter)',
      '1.8.0(0012345678*Wh)\r\n1.7.0(00230*W)\r\n32.7(230.1*V)\r\n',
      { energy: 12345.678, active_power: 230, voltage: 230.1 },
    ],
    [
      'signed total power 16.7.0 wins over import and export',
      '1-0:1.8.0(10.000*kWh)\r\n1-0:16.7.0(-0.500*kW)\r\n1-0:1.7.0(0.000*kW)\r\n1-0:32.7.0(231*V)\r\n',
      { energy: 10, active_power: -500, voltage: 231 },
    ],
    [
      'import less export when there is no 16.7.0',
      '1-0:1.8.0(10*kWh)\r\n1-0:1.7.0(1.2*kW)\r\n1-0:2.7.0(0.2*kW)\r\n1-0:12.7.0(0.23*kV)\r\n',
      { energy: 10, active_power: 1000, voltage: 230 },
    ],
    [
      "a time stamp after a value and another medium's codes are ignored",
      '1-0:1.8.0(5.5*kWh)(2611261415)\r\n7-0:1.8.0(99*m3)\r\n1-0:21.7.0(0.1*kW)\r\n1-0:32.7.0(229.99*V)\r\n',
      { energy: 5.5, active_power: 100, voltage: 229.99 },
    ],
  ];
  it.each(basic)('%s: a basic meter', (_name, block, expected) => {
    const r = sampleOfReadout(lines(block), TS);
    expect(r).toEqual({ ok: true, value: { model: 'basic', sample: { ts: TS, balance: 0, ...expected } } });
  });

  const failures: [string, string, string][] = [
    ['no energy', '1-0:1.7.0(1*kW)\r\n1-0:32.7.0(230*V)\r\n', 'no energy (1.8.0)'],
    ['no voltage', '1-0:1.8.0(1*kWh)\r\n1-0:1.7.0(1*kW)\r\n', 'no voltage'],
    ['no power', '1-0:1.8.0(1*kWh)\r\n1-0:32.7.0(230*V)\r\n', 'no active power'],
    [
      'energy in an unknown unit',
      '1-0:1.8.0(1*kvarh)\r\n1-0:1.7.0(1*kW)\r\n1-0:32.7.0(230*V)\r\n',
      'unit kvarh',
    ],
    ['energy with no unit', '1-0:1.8.0(1)\r\n1-0:1.7.0(1*kW)\r\n1-0:32.7.0(230*V)\r\n', 'unit (none)'],
    [
      'a value that is no number',
      '1-0:1.8.0(ERR*kWh)\r\n1-0:1.7.0(1*kW)\r\n1-0:32.7.0(230*V)\r\n',
      '"ERR" is not a number',
    ],
    ['an empty value', '1-0:1.8.0(*kWh)\r\n1-0:1.7.0(1*kW)\r\n1-0:32.7.0(230*V)\r\n', 'is not a number'],
    [
      'negative energy [MC-7.4]',
      '1-0:1.8.0(-1*kWh)\r\n1-0:1.7.0(1*kW)\r\n1-0:32.7.0(230*V)\r\n',
      'energy -1 is negative',
    ],
    [
      'a power factor over 1 [MC-7.4]',
      '1-0:1.8.0(1*kWh)\r\n1-0:1.7.0(1*kW)\r\n1-0:32.7.0(230*V)\r\n1-0:31.7.0(1*A)\r\n1-0:33.7.0(1.5)\r\n1-0:9.7.0(1*kVA)\r\n1-0:3.7.0(0*kvar)\r\n',
      'power factor 1.5',
    ],
  ];
  it.each(failures)('%s: the read fails, naming it', (_name, block, error) => {
    const r = sampleOfReadout(lines(block), TS);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toContain(error);
  });

  it('a meter declared full whose readout lacks current fails; declared basic it reads', () => {
    const block = lines('1-0:1.8.0(1*kWh)\r\n1-0:1.7.0(1*kW)\r\n1-0:32.7.0(230*V)\r\n');
    expect(sampleOfReadout(block, TS, 'full')).toMatchObject({ ok: false });
    expect(sampleOfReadout(block, TS, 'basic')).toMatchObject({ ok: true, value: { model: 'basic' } });
  });
});
