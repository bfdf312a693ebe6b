// What Home Assistant discovery costs at N meters (issue 22 §3, HA-8): the extension alone against the
// embedded aedes broker, with N devices in a store stand-in and twins that report: the first
// announcement of every meter (10 retained configs each), then state rounds where every meter's
// telemetry changed (the worst case the coalescing allows: one publication per meter per period).
//   npx tsx bench/ha-discovery.ts [meters=10000]

import { performance } from 'node:perf_hooks';
import { startBroker } from '../src/broker/index.ts';
import type { Twin } from '../src/devices/types.ts';
import { EventBus } from '../src/events/bus.ts';
import { Metrics } from '../src/events/metrics.ts';
import { HA_METRICS, HomeAssistantExtension } from '../src/extensions/home-assistant/extension.ts';
import type { DeviceRecord, Store } from '../src/store/types.ts';

const N = Number(process.argv[2] ?? 10_000);
const login = { username: 'svc', password: 'svc-password' };
const broker = await startBroker({
  port: 0,
  authenticate: (u, p) => (u === login.username && p === login.password ? { kind: 'service' } : null),
});
const ids = Array.from({ length: N }, (_, i) => `MTR-${String(i).padStart(6, '0')}`);
const record = (deviceId: string, pk: number) =>
  ({
    pk,
    deviceId,
    accountId: 1,
    spaceId: 1,
    name: deviceId,
    model: 'full',
    kind: 'virtual',
  }) as DeviceRecord;
const devices = ids.map(record);
const store = {
  listDevices: async () => devices,
  getDevice: async (id: string) => devices.find((d) => d.deviceId === id) ?? null,
  getSpace: async () => ({ id: 1, accountId: 1, name: 'Tower A' }),
} as unknown as Store;
let w = 100;
const twins = new Map<string, Twin>(
  ids.map((id) => [
    id,
    {
      deviceId: id,
      online: true,
      info: null,
      state: { ts: 1, mode: 'prepaid', relay_state: true, active_tariff: 1, balance: 50_000 },
      latest: { ts: 2, energy: 1, active_power: w, voltage: 230, current: 0.4, balance: 50_000 },
    } as unknown as Twin,
  ]),
);
const metrics = new Metrics();
const bus = new EventBus({ now: Date.now, metrics });
const ext = new HomeAssistantExtension({ telemetryPeriodMs: 0 });
ext.start({ bus, store, clock: { now: Date.now }, log: () => {}, metrics, role: 'world', config: {} });

const cpu0 = process.cpuUsage();
let t0 = performance.now();
await ext.attach({
  broker: { kind: 'embedded', url: broker.url, login },
  twins: { get: (id) => twins.get(id), command: async () => ({ ok: true, data: null }) },
  version: 'bench',
});
await ext.flush();
const announce = performance.now() - t0;
const cpu1 = process.cpuUsage(cpu0);
const rss = process.memoryUsage().rss / 2 ** 20;
console.log(
  `${N} meters: first announcement ${announce.toFixed(0)} ms (CPU ${((cpu1.user + cpu1.system) / 1000).toFixed(0)} ms), ` +
    `${metrics.value(HA_METRICS.published)} publications, RSS ${rss.toFixed(0)} MiB`,
);

for (let round = 0; round < 3; round++) {
  w += 1;
  for (const twin of twins.values()) (twin.latest as { active_power: number }).active_power = w;
  bus.emit('telemetry.summary', {
    interval_ms: 1000,
    messages: N,
    samples: N,
    meters: ids.map((device_id) => ({
      device_id,
      ts: 3,
      active_power: w,
      energy: 1,
      voltage: 230,
      balance: 1,
    })),
  });
  t0 = performance.now();
  const c0 = process.cpuUsage();
  await ext.flush();
  const c = process.cpuUsage(c0);
  console.log(
    `state round ${round + 1}: ${N} changed meters published in ${(performance.now() - t0).toFixed(0)} ms ` +
      `(CPU ${((c.user + c.system) / 1000).toFixed(0)} ms)`,
  );
}
await ext.stop();
await broker.close();
