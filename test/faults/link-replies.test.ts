// Issue 12 §1, link faults on replies and commands, through the real service (aedes on an ephemeral
// port, the twins, SQLite, real HTTP against the v2 API): reply_drop, reply_delay, busy,
// malformed_reply, silence.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../../simulator/meter/faults/types.ts';
import { TWIN_METRICS } from '../../src/devices/channels/context.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  type Device,
  data,
  failed,
  meterView,
  type Tenant,
  tenant,
  type V2,
  v2Client,
} from '../helpers/v2.ts';

const TIMEOUT_MS = 300;

let t: TestService;
let v2: V2;

beforeAll(async () => {
  t = await startTestService({ speed: 0, commandTimeoutMs: TIMEOUT_MS });
  v2 = v2Client(t.svc.httpUrl);
});
afterAll(() => t.close());

/** A fresh online virtual meter with one fault switched on now. */
async function meterWith(kind: Fault['kind'], params: Record<string, unknown>): Promise<Tenant> {
  const a = await tenant(t.sim, { load_watts: 500 });
  const now = t.svc.world.clock.now();
  t.svc.world
    .meter(a.deviceId)!
    .addFault({ id: 'F1', kind, params, from: now, until: null, seed: 7 } as Fault);
  return a;
}
const relay = (a: Tenant, state: boolean) => v2('PUT', `/devices/${a.deviceId}/relay`, { state }, a.key);

describe('reply_drop', () => {
  it('p=1: PUT relay → 400 device_timeout, yet the meter DID switch (the command was applied)', async () => {
    const a = await meterWith('reply_drop', { probability: 1 });
    const detail = failed(await relay(a, false), 400, 'device_timeout');
    expect(detail).toContain(`did not answer within ${TIMEOUT_MS} ms`);
    expect((await meterView(t.sim, a.deviceId)).relay_commanded).toBe(false);
  });

  it('cleared: the next command is answered', async () => {
    const a = await meterWith('reply_drop', { probability: 1 });
    t.svc.world.meter(a.deviceId)!.clearFaults('all');
    expect(data(await relay(a, false), 'relay state updated')).toBe(true);
  });

  it('the meter stays online for the v2 API (is_online true): only its answers are lost', async () => {
    const a = await meterWith('reply_drop', { probability: 1 });
    failed(await v2('GET', `/devices/${a.deviceId}/metrics`, undefined, a.key), 400, 'properties_unreadable');
    expect(data(await v2<Device>('GET', `/devices/${a.deviceId}/`, undefined, a.key)).is_online).toBe(true);
  });
});

describe('reply_delay', () => {
  it('a delay under the command timeout: answered, no sooner than the delay', async () => {
    const a = await meterWith('reply_delay', { delay_ms: 150 });
    const started = performance.now();
    expect(data(await relay(a, false), 'relay state updated')).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('a delay beyond it: device_timeout, the meter switched all the same, and the late reply is dropped', async () => {
    const a = await meterWith('reply_delay', { min_ms: 500, max_ms: 600 });
    const unmatched = t.svc.world.twins.refused.unmatchedReply ?? 0;
    failed(await relay(a, false), 400, 'device_timeout');
    expect((await meterView(t.sim, a.deviceId)).relay_commanded).toBe(false);
    await expect
      .poll(() => t.svc.world.twins.refused.unmatchedReply ?? 0, { timeout: 2_000 })
      .toBeGreaterThan(unmatched);
  });
});

describe('busy', () => {
  it('p=1: PUT relay → 400 device_rejected naming busy, and the command was NOT applied', async () => {
    const a = await meterWith('busy', { probability: 1 });
    const detail = failed(await relay(a, false), 400, 'device_rejected');
    expect(detail).toMatch(/busy/);
    expect((await meterView(t.sim, a.deviceId)).relay_commanded).toBe(true);
  });
});

describe('malformed_reply', () => {
  it('p=1: the twin drops the bytes as malformed [MC-9.3] → device_timeout; the command was applied', async () => {
    const a = await meterWith('malformed_reply', { probability: 1 });
    const malformed = t.svc.metrics.value(TWIN_METRICS.malformed)!;
    failed(await relay(a, false), 400, 'device_timeout');
    expect(t.svc.metrics.value(TWIN_METRICS.malformed)!).toBeGreaterThan(malformed);
    expect((await meterView(t.sim, a.deviceId)).relay_commanded).toBe(false);
    failed(await v2('GET', `/devices/${a.deviceId}/metrics`, undefined, a.key), 400, 'properties_unreadable');
  });
});

describe('silence (a stale meter)', () => {
  it('is_online stays true (no will fired [MC-6.6]); /metrics → properties_unreadable; control → device_timeout, not applied', async () => {
    const a = await meterWith('silence', {});
    const dev = (p: string) => `/devices/${a.deviceId}/${p}`;
    failed(await v2('GET', dev('metrics'), undefined, a.key), 400, 'properties_unreadable');
    failed(await relay(a, false), 400, 'device_timeout');
    expect((await meterView(t.sim, a.deviceId)).relay_commanded).toBe(true);
    const device = data(await v2<Device>('GET', dev(''), undefined, a.key));
    expect(device.is_online).toBe(true);
    expect(t.svc.world.twins.get(a.deviceId)?.online).toBe(true);
  });

  it('publishes no telemetry while silent, and sends what it held once it speaks again', async () => {
    const a = await meterWith('silence', {});
    const pk = (await t.svc.store.getDevice(a.deviceId))!.pk;
    await new Promise((r) => setTimeout(r, 100));
    const before = await t.svc.store.countSamples(pk);
    const { to } = await t.svc.world.advance(10 * 60_000); // 10 samples fall due (60 s period)
    expect(await t.svc.store.countSamples(pk)).toBe(before);
    const meter = t.svc.world.meter(a.deviceId)!;
    expect(meter.pendingSamples).toBeGreaterThanOrEqual(10);
    meter.command('technician-1', { op: 'set_relay', on: false }, to); // at the meter: its state report is silenced
    await new Promise((r) => setTimeout(r, 100));
    const twin = () => t.svc.world.twins.get(a.deviceId)?.state?.relay_commanded;
    expect(twin()).toBe(true);
    meter.clearFaults('all', to);
    await expect.poll(twin, { timeout: 2_000 }).toBe(false); // it speaks again: its present state first
    await meter.drained();
    await expect
      .poll(() => t.svc.store.countSamples(pk), { timeout: 2_000 })
      .toBeGreaterThanOrEqual(before + 10);
    expect(data(await relay(a, false), 'relay state updated')).toBe(true);
  });
});
