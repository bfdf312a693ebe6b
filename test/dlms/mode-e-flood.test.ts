// [IEC-8.3, IEC-10.3] The simulated mode E meter under a flood of sign-on requests: each `/?!` queues a
// reaction wait and an identification; only the newest request's are carried out, so a flood gets one
// identification back (not one per request, 200 ms apart, queued without bound). The meter's optical port
// on one end of a socat pty pair, a raw serial port at 300 Bd 7E1 on the other.

import { SerialPort } from 'serialport';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeMessage } from '../../firmware-protocol/iec62056-21/codec.ts';
import { DlmsMeter } from '../../simulator/dlms-meter.ts';
import { ModeEMeterPort } from '../../simulator/dlms-mode-e.ts';
import { createMeter } from '../../simulator/meter/index.ts';
import { PtyPair, skipWithoutSocat, until } from '../bridge/helpers.ts';
import { tempDir } from '../helpers/service.ts';

describe.skipIf(skipWithoutSocat)('mode E meter: a flood of sign-on requests [IEC-8.3]', () => {
  const tmp = tempDir('meterstack-mode-e-flood-');
  const pty = new PtyPair(tmp.dir);
  let meter: DlmsMeter;
  let optical: ModeEMeterPort;
  let reader: SerialPort;
  const got: Buffer[] = [];
  beforeAll(async () => {
    await pty.start();
    const state = createMeter(
      { deviceId: 'MTR-FLOOD', model: 'full', mode: 'prepaid', balance: 50_000, telemetryPeriodMs: 60_000 },
      Date.now(),
    );
    meter = new DlmsMeter({ state, now: Date.now, log: () => undefined });
    optical = new ModeEMeterPort({
      meter,
      path: pty.a,
      address: { bytes: 2, upper: 1, lower: 16 },
      log: () => undefined,
      now: Date.now,
    });
    optical.start();
    reader = new SerialPort({ path: pty.b, baudRate: 300, dataBits: 7, parity: 'even', autoOpen: false });
    await new Promise<void>((ok, no) => reader.open((e) => (e ? no(e) : ok())));
    reader.on('data', (b: Buffer) => got.push(b));
    await new Promise((r) => setTimeout(r, 300)); // the meter's port open at 300 Bd
  });
  afterAll(async () => {
    if (reader?.isOpen) await new Promise<void>((r) => reader.close(() => r()));
    await optical?.close();
    await pty.kill();
    tmp.remove();
  });

  it('[IEC-8.3] 20 requests at once: one identification back, within one reaction time', async () => {
    const request = Buffer.from(encodeMessage({ kind: 'request', address: '' }));
    for (let i = 0; i < 20; i++) reader.write(request);
    const ident = () =>
      Buffer.concat(got)
        .toString('latin1')
        .split('\r\n')
        .filter((l) => l.startsWith('/')).length;
    await until(() => ident() >= 1, 3_000, 'an identification');
    await new Promise((r) => setTimeout(r, 900)); // the old queue sent one every 200 ms
    expect(ident()).toBe(1);
  });
});
