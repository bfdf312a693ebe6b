// [MC-11] A real serial meter behind the bridge (socat pty pair, `meterstack meter` and `meterstack
// bridge` as processes) in a world that jumps: after `advance 6h` its next samples, its events and its
// history land at the world's now, "last seen" is seconds ago, and the advance names it as not having
// lived through the jump. Both run on wall time (the meter's clock is set from the bridge's, SP-5.9).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeterEvent } from '../../src/events/schemas.ts';
import {
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import { data, type V2, v2Client } from '../helpers/v2.ts';
import { CliProcess, PtyPair, skipWithoutSocat, until } from './helpers.ts';

const H = 3_600_000;
const istDay = (ms: number) => new Date(ms + 19_800_000).toISOString().slice(0, 10);

describe.skipIf(skipWithoutSocat)('a bridged serial meter across a clock advance [MC-11]', () => {
  let t: TestService;
  let v2: V2;
  let tmp: { dir: string; remove: () => void };
  let pty: PtyPair;
  let meter: CliProcess;
  let bridge: CliProcess;
  let id: string;
  const events: MeterEvent[] = [];

  const clockNow = async () => ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
  const latestTs = () => t.svc.world.twins.get(id)?.latest?.ts ?? 0;

  beforeAll(async () => {
    t = await startTestService({ speed: 1 });
    t.svc.bus.subscribe((e) => events.push(e));
    tmp = tempDir('meterstack-wallclock-');
    const { account_id, api_key } = await newAccount(t.sim);
    v2 = v2Client(t.svc.httpUrl, api_key);
    const space = ok(await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Lab' }));
    const ext = await provision(t.sim, {
      account_id,
      space_id: space.space_id,
      external: true,
      model: 'basic',
      device_id: 'MTR-WALL-1',
    });
    id = ext.device_id;
    pty = await new PtyPair(tmp.dir).start();
    meter = new CliProcess([
      'meter',
      ...['--serial', pty.a, '--device', id, '--model', 'basic', '--balance', '5000'],
      ...['--load-watts', '1000', '--telemetry-period-s', '1', '--keepalive-s', '1'],
    ]);
    bridge = new CliProcess([
      'bridge',
      ...['--serial', pty.b, '--broker', ext.mqtt.url, '--username', ext.mqtt.username],
      ...['--password', ext.mqtt.password],
    ]);
    await until(() => latestTs() > 0, 20_000, 'a first sample over the wire');
  }, 40_000);

  afterAll(async () => {
    await bridge?.stop();
    await meter?.stop();
    await pty?.kill();
    await t?.close();
    tmp?.remove();
  });

  it('[MC-11.3] [MC-11.2] after advance 6h: named as not jumping; its next samples, events and history at the world’s now', async () => {
    const beforeTs = latestTs();
    const res = await t.sim<{ wall_clock_meters: string[] }>('POST', '/clock/advance', { seconds: 6 * 3600 });
    expect(ok(res).wall_clock_meters).toEqual([id]);
    const jumpedAt = await clockNow();
    await until(() => latestTs() >= jumpedAt - 2_000, 10_000, 'a sample on the new time');
    const now = await clockNow();
    // No sample was put in the 6 h it did not live through.
    const pk = (await t.svc.store.getDevice(id))!.pk;
    await t.svc.world.settle();
    const newest = (await t.svc.store.latestSample(pk))!;
    expect(newest.ts).toBeGreaterThanOrEqual(jumpedAt - 2_000);
    expect(newest.ts).toBeLessThanOrEqual(now + 1_000);
    // "Last seen" in the fleet: seconds ago on the world's clock, not 6 h.
    const row = ok(
      await t.sim<{ devices: { device_id: string; last_seen: number }[] }>('GET', '/fleet'),
    ).devices.find((d) => d.device_id === id)!;
    expect(now - row.last_seen).toBeLessThan(10_000);
    // A relay switched through the serial line: the event carries the world's time.
    data(await v2('PUT', `/devices/${id}/relay`, { state: false }));
    await until(
      () => events.some((e) => e.type === 'meter.relay' && e.device_id === id),
      10_000,
      'relay event',
    );
    const relay = events.find((e) => e.type === 'meter.relay' && e.device_id === id)!;
    expect(relay.vt).toBeGreaterThanOrEqual(jumpedAt - 2_000);
    // History (a bucket is stamped with its end): the newest 15-minute bucket is the world's now; the
    // samples before the jump stay where they were, 6 h back, and nothing fills the gap.
    const h = data(
      await v2<{ readings: { value: number; timestamp: string }[] }>(
        'GET',
        `/devices/${id}/metrics/history?property_id=energy&from_date=${istDay(now - 24 * H)}&to_date=${istDay(now)}&interval=15m`,
      ),
    ).readings;
    expect(Date.parse(h.at(-1)!.timestamp)).toBeGreaterThanOrEqual(now);
    expect(Date.parse(h.at(-1)!.timestamp)).toBeLessThan(now + 15 * 60_000);
    expect(h.filter((r) => Date.parse(r.timestamp) > beforeTs + 15 * 60_000)).toHaveLength(1);
    expect(
      h.some((r) => Date.parse(r.timestamp) >= beforeTs && Date.parse(r.timestamp) < beforeTs + 15 * 60_000),
    ).toBe(true);
  }, 40_000);
});
