import { describe, expect, it } from 'vitest';
import { BUS_METRICS, EventBus, requestEvent } from './bus.ts';
import { Metrics } from './metrics.ts';
import { EventSchema } from './schemas.ts';

describe('EventBus', () => {
  it('stamps ascending seq, virtual and wall time, and the device', () => {
    let vt = 1_000;
    const bus = new EventBus({ now: () => vt, wall: () => 5, firstSeq: 41 });
    const seen: unknown[] = [];
    bus.subscribe((e) => seen.push(e));
    bus.emit('clock.speed', { speed: 2, was: 1 });
    vt = 2_000;
    bus.emit('meter.cutoff', { balance: -12 }, { deviceId: 'MTR-A101', accountId: 3 });
    expect(seen).toEqual([
      { seq: 41, type: 'clock.speed', vt: 1_000, wt: 5, data: { speed: 2, was: 1 } },
      {
        seq: 42,
        type: 'meter.cutoff',
        vt: 2_000,
        wt: 5,
        device_id: 'MTR-A101',
        account_id: 3,
        data: { balance: -12 },
      },
    ]);
    for (const e of seen) expect(EventSchema.safeParse(e).success).toBe(true);
    expect(bus.nextSeq).toBe(43);
  });

  it('keeps emitting to the others when a subscriber throws, and counts it', () => {
    const metrics = new Metrics();
    const bus = new EventBus({ now: () => 0, metrics });
    const seen: number[] = [];
    bus.subscribe(() => {
      throw new Error('view bug');
    });
    bus.subscribe((e) => seen.push(e.seq));
    bus.emit('log', { level: 'info', msg: 'x' });
    expect(seen).toEqual([1]);
    expect(metrics.value(BUS_METRICS.subscriberErrors)).toBe(1);
  });

  it('starts at a seq given before the first event, and refuses one after it (a seq is never reused)', () => {
    const bus = new EventBus({ now: () => 0 });
    bus.startAt(1_000);
    expect(bus.nextSeq).toBe(1_000);
    expect(bus.emit('log', { level: 'info', msg: 'x' })?.seq).toBe(1_000);
    expect(() => bus.startAt(5)).toThrow(/emitted already/);
    expect(() => new EventBus({ now: () => 0 }).startAt(0)).toThrow(TypeError);
  });

  it('numbers answered requests in line with events, hands their redacted fields to watchers only [EXT-7]', () => {
    let vt = 10;
    const bus = new EventBus({ now: () => vt++, wall: () => 5 });
    const subscribed: string[] = [];
    const watched: unknown[] = [];
    bus.subscribe((e) => subscribed.push(`${e.seq} ${e.type}`));
    bus.onRequest((seq, vt, wt, data, accountId) => watched.push(requestEvent(seq, vt, wt, data, accountId)));
    bus.emit('log', { level: 'info', msg: 'x' });
    const data = {
      method: 'GET',
      route: '/api/v2/devices/:device_id/',
      url: '/api/v2/devices/A/?token=adm_s3cretvalue',
      status: 200,
      latency_ms: 0.5,
      account_id: 3,
    };
    bus.request(data, 3);
    bus.emit('log', { level: 'info', msg: 'y' });
    expect(subscribed).toEqual(['1 log', '3 log']);
    expect(watched).toEqual([
      {
        seq: 2,
        type: 'http.request',
        vt: 11,
        wt: 5,
        account_id: 3,
        data: { ...data, url: '/api/v2/devices/A/?token=***' },
      },
    ]);
    for (const e of watched) expect(EventSchema.safeParse(e).success).toBe(true);
    // emit() of a request goes the same way, and returns the event it was.
    const e = bus.emit('http.request', { ...data, status: 404, code: 'not_found' });
    expect(e).toMatchObject({ seq: 4, type: 'http.request', data: { status: 404, code: 'not_found' } });
    expect(watched.at(-1)).toEqual(e);
    expect(subscribed).toHaveLength(2);
  });

  it('counts a request watcher that throws and goes on to the next one', () => {
    const metrics = new Metrics();
    const bus = new EventBus({ now: () => 0, metrics });
    const seen: number[] = [];
    bus.onRequest(() => {
      throw new Error('view bug');
    });
    bus.onRequest((seq) => seen.push(seq));
    bus.request({ method: 'GET', route: '/', url: '/', status: 200, latency_ms: 1, account_id: null });
    expect(seen).toEqual([1]);
    expect(metrics.value(BUS_METRICS.subscriberErrors)).toBe(1);
  });

  it('does nothing when disabled (the bus-off baseline)', () => {
    const bus = new EventBus({ now: () => 0, enabled: false });
    let n = 0;
    bus.subscribe(() => n++);
    expect(bus.emit('log', { level: 'info', msg: 'x' })).toBeNull();
    expect(n).toBe(0);
  });

  it('refuses an event whose data does not fit its type', () => {
    const bad = { seq: 1, type: 'meter.cutoff', vt: 0, wt: 0, data: { balance: 1.5 } };
    expect(EventSchema.safeParse(bad).success).toBe(false);
  });
});
