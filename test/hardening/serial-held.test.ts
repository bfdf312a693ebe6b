// Issue 8 item 13 [SP-5.6, SP-5.2]: opening a serial port discards the input pending on it, so what a meter
// wrote before the bridge opened its end (a HELLO, samples) never arrives. The serial meter holds every
// sample until a PONG confirms it and resends the lot after the HELLO/STATE an IDENT asks for; the bridge
// asks at open. Here the meter (simulator/serial-meter.ts, the virtual firmware) runs for a while with
// nobody on the other end, then the bridge starts: every sample from the start must reach MQTT, in order,
// without a gap and without a duplicate.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMeter } from '../../simulator/meter/index.ts';
import { SerialMeter } from '../../simulator/serial-meter.ts';
import { Bridge } from '../../src/bridge/bridge.ts';
import type { Broker } from '../../src/broker/index.ts';
import { PtyPair, skipWithoutSocat, until } from '../bridge/helpers.ts';
import { tempDir } from '../helpers/service.ts';
import { DEVICE, PASSWORD, ServiceSide, startTestBroker } from './serial-harness.ts';

const PERIOD_MS = 200;

describe.skipIf(skipWithoutSocat)(
  '[SP-5.6] issue 8 item 13: samples written before the bridge opened its port',
  () => {
    let broker: Broker;
    let svc: ServiceSide;
    let tmp: { dir: string; remove: () => void };
    let pty: PtyPair;
    let meter: SerialMeter;
    let bridge: Bridge | undefined;

    beforeAll(async () => {
      broker = await startTestBroker();
      svc = await ServiceSide.connect(broker.url);
      tmp = tempDir('meterstack-held-');
      pty = await new PtyPair(tmp.dir).start();
    });
    afterAll(async () => {
      await bridge?.close();
      await meter?.stop();
      await pty?.kill();
      await svc?.close();
      await broker?.close();
      tmp?.remove();
    });

    it('[SP-5.6][SP-5.7] are resent after IDENT and all reach MQTT, in order, once each', async () => {
      const t0 = Date.now();
      const state = createMeter({ deviceId: DEVICE, telemetryPeriodMs: PERIOD_MS, balance: 1000 }, t0);
      meter = new SerialMeter({
        state,
        serial: pty.a,
        baud: 115_200,
        now: Date.now,
        log: () => undefined,
        keepaliveS: 1,
      });
      meter.start();
      // Let samples fall due while nothing listens on the other end.
      await new Promise((r) => setTimeout(r, 6 * PERIOD_MS));
      const opened = Date.now();
      bridge = new Bridge({
        serial: pty.b,
        baud: 115_200,
        broker: { url: broker.url, username: DEVICE, password: PASSWORD },
        log: () => undefined,
      });
      bridge.start();
      await until(() => svc.samples().some((s) => s.ts > opened + 2 * PERIOD_MS), 10_000, 'live samples');
      const all = svc.samples().map((s) => s.ts);
      // The periodic samples lie on the period's boundaries; the connect sample [SP-5.13] between two
      // (or none, when the reading fell on a boundary: that boundary's sample serves).
      const ts = all.filter((t) => t % PERIOD_MS === 0);
      expect(all.length - ts.length).toBeLessThanOrEqual(1);
      for (let i = 1; i < all.length; i++) expect(all[i]!).toBeGreaterThan(all[i - 1]!);
      const early = ts.filter((t) => t < opened);
      expect(early.length).toBeGreaterThanOrEqual(4);
      expect(ts[0]!).toBeLessThanOrEqual(t0 + PERIOD_MS);
      // Consecutive, ascending, no duplicates.
      for (let i = 1; i < ts.length; i++) expect(ts[i]! - ts[i - 1]!).toBe(PERIOD_MS);
    });
  },
);
