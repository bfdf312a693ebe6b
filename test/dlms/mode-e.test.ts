// IEC 62056-21 protocol mode E end to end [IEC-10]: `meterstack meter --protocol dlms --iec-mode-e` as a
// child process on one end of a socat pty pair, the DLMS bridge's own serial transport with `modeE` on the
// other, as it opens a USB optical probe: the sign-on at 300 Bd (request, identification with \2,
// ACK 2 5 2), then HDLC at 9600 Bd (SNRM/UA, an LLS association, registers read), DISC, and the meter back
// at the sign-on for the next association, which `meterstack bridge --dlms --iec-mode-e` itself makes. One
// meter for the file.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Data } from '../../firmware-protocol/dlms/apdu/data.ts';
import { OBIS } from '../../firmware-protocol/dlms/cosem/obis.ts';
import { HdlcSerialTransport } from '../../src/bridge/dlms/hdlc-serial.ts';
import { signOnModeE } from '../../src/bridge/dlms/mode-e-sign-on.ts';
import { CliProcess, PtyPair, skipWithoutSocat, until } from '../bridge/helpers.ts';
import { tempDir } from '../helpers/service.ts';
import { DlmsTestClient } from './client.ts';

const SERVER = { bytes: 2 as const, upper: 1, lower: 16 };

/** The bridge's transport (events) as the test client's (a promise per request). */
async function openBridgeTransport(path: string) {
  const t = new HdlcSerialTransport({ path, baud: 9600, client: 32, server: SERVER, modeE: true });
  let waiting: ((apdu: Uint8Array) => void) | null = null;
  await t.open({
    onApdu: (apdu) => waiting?.(apdu),
    onClosed: () => undefined,
    onBad: () => undefined,
  });
  const client = new DlmsTestClient({
    send: (apdu) =>
      new Promise<Uint8Array>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no answer')), 3_000);
        waiting = (a) => {
          clearTimeout(timer);
          resolve(a);
        };
        t.send(apdu);
      }),
    close: () => t.close(),
  });
  return { t, client };
}

const num = (d: Data): number => {
  if (!('value' in d) || typeof d.value !== 'number') throw new Error(d.type);
  return d.value;
};

describe.skipIf(skipWithoutSocat)('IEC 62056-21 mode E: the optical port switches to HDLC [IEC-10]', () => {
  const tmp = tempDir('meterstack-mode-e-');
  const pty = new PtyPair(tmp.dir);
  let meter: CliProcess;
  beforeAll(async () => {
    await pty.start();
    meter = new CliProcess([
      'meter',
      '--protocol',
      'dlms',
      '--serial',
      pty.a,
      '--iec-mode-e',
      '--device',
      'MTR-MODE-E',
      '--model',
      'full',
      '--load-watts',
      '1000',
      '--balance',
      '50000',
      '--log-level',
      'debug',
    ]);
    await until(() => meter.output.includes('300 Bd, 7E1'), 10_000, 'the meter to open its optical port');
  });
  afterAll(async () => {
    if (process.env['MODE_E_DEBUG']) console.log(meter?.output);
    await meter?.stop();
    await pty.kill();
    tmp.remove();
  });

  it('[IEC-10.4, IEC-10.6, AS-8] the bridge signs on, switches to 9600 Bd, associates and reads; DISC brings the meter back to the sign-on', async () => {
    const { client } = await openBridgeTransport(pty.b);
    try {
      expect(await client.associate('ABCDEFGH')).toBe(0);
      expect(num(await client.data(3, OBIS.activePower, 2))).toBe(10_000); // 1000.0 W at scaler −1
      expect(num(await client.data(3, OBIS.voltage, 2)) / 100).toBeGreaterThan(200);
      await client.release();
    } finally {
      await client.t.close();
    }
    expect(meter.output).toContain('mode E: HDLC at 9600 Bd, 8N1 [IEC-10.4]');
    await until(() => meter.output.includes('back to the sign-on'), 3_000, 'the meter back at 300 Bd');
  });

  it('[IEC-10.5, IEC-10.6] after that DISC, `meterstack bridge --dlms --iec-mode-e` signs on again from 300 Bd and associates, as it opens an optical probe', async () => {
    const tmpState = `${tmp.dir}/state.json`;
    const bridge = new CliProcess(
      [
        'bridge',
        '--dlms',
        '--serial',
        pty.b,
        '--iec-mode-e',
        '--password',
        'ABCDEFGH',
        '--username',
        'MTR-MODE-E',
        '--broker',
        'mqtt://127.0.0.1:9', // nobody: the DLMS side does not wait for the broker
        '--state-file',
        tmpState,
      ],
      { ...process.env, METERSTACK_BRIDGE_PASSWORD: 'x' },
    );
    try {
      await until(() => bridge.output.includes('associated'), 10_000, 'the bridge to associate');
      expect(bridge.output).toContain('IEC 62056-21 mode E, then HDLC at up to 9600 baud');
      expect(meter.output.match(/mode E: HDLC at 9600 Bd/g)).toHaveLength(2);
    } finally {
      await bridge.stop();
    }
  });

  it('[IEC-10.3] a reader limited to 2400 Bd gets HDLC at 2400 Bd', async () => {
    await until(() => (meter.output.match(/back to the sign-on/g) ?? []).length >= 2, 3_000, 'the sign-on');
    const baud = await signOnModeE({ path: pty.b, maxBaudChar: '3' });
    expect(baud).toBe(2400);
    await until(() => meter.output.includes('mode E: HDLC at 2400 Bd'), 3_000, 'the meter at 2400 Bd');
    // No SNRM follows: the meter gives the port back to the sign-on after IEC-10.5's 5 s.
  });
});
