import { describe, expect, it } from 'vitest';
import { Metrics } from '../../events/metrics.ts';
import type { MeterEvent } from '../../events/schemas.ts';
import { BoundedLabel, OTHER } from './bounded-label.ts';
import { EventCounter } from './count-events.ts';
import { busSeries } from './series.ts';

let seq = 1;
const ev = (type: string, data: unknown): MeterEvent =>
  ({ seq: seq++, type, vt: 0, wt: 0, data }) as unknown as MeterEvent;
const request = (route: string, status: number, code?: string) =>
  ev('http.request', { method: 'GET', route, url: route, status, latency_ms: 2, account_id: null, code });

describe('BoundedLabel [PM-2]', () => {
  it('keeps the first N values and counts later ones as other', () => {
    const b = new BoundedLabel(2);
    expect([b.of('a'), b.of('b'), b.of('c'), b.of('a')]).toEqual(['a', 'b', OTHER, 'a']);
    expect(() => new BoundedLabel(0)).toThrow(TypeError);
  });
});

describe('EventCounter [PM-2, PM-4]', () => {
  it('counts requests by method, route template and status, with latency and rate limiting', async () => {
    const m = new Metrics();
    const c = new EventCounter(busSeries(m));
    c.count(request('/api/v2/devices/:device_id', 200));
    c.count(request('/api/v2/devices/:device_id', 200));
    c.count(request('/api/v2/devices/:device_id', 429, 'rate_limit_exceeded'));
    const text = await m.text();
    expect(text).toContain(
      'meterstack_http_requests_total{method="GET",route="/api/v2/devices/:device_id",status="200"} 2',
    );
    expect(text).toContain('meterstack_http_rate_limited_total 1');
    expect(text).toContain(
      'meterstack_http_request_duration_seconds_count{method="GET",route="/api/v2/devices/:device_id"} 3',
    );
    expect(text).toContain('meterstack_events_total{type="http.request"} 3');
  });

  it('a flood of invented routes, reasons and ops grows no series past the bound', async () => {
    const m = new Metrics();
    const c = new EventCounter(busSeries(m));
    for (let i = 0; i < 1000; i++) {
      c.count(request(`/made-up/${i}`, 404));
      c.count(ev('contract.refused', { reason: `r${i}`, count: 1, detail: '' }));
      c.count(ev('command.sent', { id: String(i), op: `op${i}` }));
    }
    const text = await m.text();
    const lines = (name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`)).length;
    expect(lines('meterstack_http_requests_total')).toBe(201);
    expect(lines('meterstack_contract_refused_total')).toBe(65);
    expect(lines('meterstack_commands_total')).toBe(33);
    expect(text).toContain('meterstack_http_requests_total{method="other",route="other",status="404"} 800');
  });

  it('counts telemetry, commands with latency, recharges, logins, refusals and clock jumps', async () => {
    const m = new Metrics();
    const c = new EventCounter(busSeries(m));
    c.count(ev('telemetry.summary', { interval_ms: 1000, messages: 3, samples: 7, meters: [] }));
    c.count(ev('command.sent', { id: '1', op: 'set_relay' }));
    c.count(ev('command.acked', { id: '1', op: 'set_relay', latency_ms: 12 }));
    c.count(ev('command.timeout', { id: '2', op: 'read', after_ms: 5000 }));
    c.count(
      ev('money.recharge', { outcome: 'applied', transaction_id: 't', amount: 1, ledger_seq: 1, balance: 1 }),
    );
    c.count(ev('meter.connected', { client_id: 'x' }));
    c.count(ev('broker.refused', { client_id: '', username: null, reason: 'bad_credentials', count: 5 }));
    c.count(ev('clock.advanced', { from: 0, to: 1 }));
    const text = await m.text();
    for (const line of [
      'meterstack_telemetry_messages_total 3',
      'meterstack_telemetry_samples_total 7',
      'meterstack_commands_total{op="set_relay",outcome="acked"} 1',
      'meterstack_commands_total{op="read",outcome="timeout"} 1',
      'meterstack_command_latency_seconds_sum{op="set_relay",outcome="acked"} 0.012',
      'meterstack_recharges_total{outcome="applied"} 1',
      'meterstack_meter_connections_total 1',
      'meterstack_broker_refused_total{reason="bad_credentials"} 5',
      'meterstack_clock_advances_total 1',
    ])
      expect(text).toContain(line);
  });
});
