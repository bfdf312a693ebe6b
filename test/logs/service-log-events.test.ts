// The service's own messages (issue 9 §2): still written to ServiceConfig.log, as every test that
// collects lines expects, and from the moment the bus exists also emitted on it as `log` events, so
// that the logs, the journal and the console see them.

import mqtt from 'mqtt';
import { describe, expect, it } from 'vitest';
import { EventSchema, type MeterEvent } from '../../src/events/schemas.ts';
import { type Extension, ServiceExtensions } from '../../src/extensions/index.ts';
import { startTestService } from '../helpers/service.ts';

/** An extension that keeps every event: started with the others, before anything is emitted [EXT-2]. */
function recorder(events: MeterEvent[]): Extension {
  let unsubscribe = () => {};
  return {
    name: 'recorder',
    start: (ctx) => {
      unsubscribe = ctx.bus.subscribe((e) => events.push(e));
    },
    stop: () => unsubscribe(),
  };
}

describe('ServiceConfig.log and the bus', () => {
  it('every message after the bus exists is both a config.log line and a log event, in the same order', async () => {
    const events: MeterEvent[] = [];
    const t = await startTestService({
      extensions: [...new ServiceExtensions().list, recorder(events)],
    });
    try {
      // config.log has no debug level: a debug line (the connection caps fitted to the machine's
      // open-files limit, issue 20 item 10) is a log event only, for the logger at --log-level debug.
      const fromBus = events
        .filter((e): e is MeterEvent<'log'> => e.type === 'log')
        .filter((e) => e.data.level !== 'debug')
        .map((e) => `${e.data.level} ${e.data.msg}`);
      expect(fromBus.some((l) => l.startsWith('info MQTT broker listening on mqtt://127.0.0.1:'))).toBe(true);
      // config.log got them all, and nothing the bus did not (the lease says nothing on a fresh store)
      expect(fromBus).toEqual(t.logs);
      for (const e of events) expect(EventSchema.safeParse(e).success).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('a refusal is told once: a config.log line and its typed event, never a log event too', async () => {
    const events: MeterEvent[] = [];
    const t = await startTestService({
      extensions: [...new ServiceExtensions().list, recorder(events)],
    });
    try {
      const bad = mqtt.connect(t.svc.mqttUrl, {
        username: 'MTR-NOPE',
        password: 'wrong',
        reconnectPeriod: 0,
      });
      await new Promise((resolve) => bad.once('error', resolve));
      bad.end(true);
      await new Promise((r) => setTimeout(r, 50));
      expect(t.logs.some((l) => l.includes('MTR-NOPE'))).toBe(true);
      const refused = events.filter((e) => e.type === 'broker.refused');
      expect(refused).toHaveLength(1);
      expect(refused[0]!.data).toMatchObject({ username: 'MTR-NOPE' });
      const told = events.filter((e) => e.type === 'log' && JSON.stringify(e.data).includes('MTR-NOPE'));
      expect(told).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
