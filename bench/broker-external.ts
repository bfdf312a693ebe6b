// issue 11 §1: what provisioning costs when the broker keeps meters' logins (Mosquitto's dynamic
// security) against the embedded broker (logins in the store), in one run. Each service runs in this
// process on a fresh SQLite file; meters are provisioned as external devices through
// World.provisionDevice, so the figure is the store + the broker login, not a virtual meter's start.
// Also the dynsec client alone: N logins asked at once (batched into requests of 200 commands).
//
//   npx tsx bench/broker-external.ts [meters=1000] [concurrency=50]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectAsync } from 'mqtt';
import { DynsecClient } from '../src/broker/dynsec-client.ts';
import { ServiceExtensions } from '../src/extensions/index.ts';
import { type ServiceConfig, startService } from '../src/service.ts';
import { type RunningMosquitto, startMosquitto } from '../test/helpers/mosquitto.ts';

const meters = Number(process.argv[2] ?? 1000);
const concurrency = Number(process.argv[3] ?? 50);

async function withService<T>(
  over: Partial<ServiceConfig>,
  fn: (svc: Awaited<ReturnType<typeof startService>>) => Promise<T>,
) {
  const dir = mkdtempSync(join(tmpdir(), 'meterstack-bench-'));
  const svc = await startService({
    host: '127.0.0.1',
    httpPort: 0,
    mqttPort: 0,
    db: join(dir, 'm.db'),
    adminToken: 'bench-admin-token',
    apiKey: 'msk_bench',
    speed: 1,
    demo: false,
    strictPort: false,
    rateLimit: 0,
    commandTimeoutMs: 5_000,
    log: () => {},
    extensions: new ServiceExtensions().list,
    ...over,
  });
  try {
    return await fn(svc);
  } finally {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** ms per meter for `n` external devices, `parallel` at a time. */
async function provisionMany(over: Partial<ServiceConfig>, n: number, parallel: number): Promise<number> {
  return withService(over, async (svc) => {
    const { account } = await svc.world.createAccount('bench');
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < n) {
          next++;
          await svc.world.provisionDevice({ accountId: account.id, spaceId: null, external: true });
        }
      }),
    );
    return (performance.now() - t0) / n;
  });
}

const fmt = (ms: number) => `${ms.toFixed(3)} ms/meter (${Math.round(1000 / ms)} meters/s)`;

/** Each dynsec pass gets a fresh Mosquitto: its cost per login grows with the logins it holds. */
async function onFreshMosquitto<T>(fn: (m: RunningMosquitto) => Promise<T>): Promise<T> {
  const m = await startMosquitto();
  try {
    return await fn(m);
  } finally {
    await m.stop();
  }
}
const dynsec = (m: RunningMosquitto): Partial<ServiceConfig> => ({
  broker: m.brokerUrl,
  brokerLogins: 'dynsec',
});
const embedded: Partial<ServiceConfig> = {};

console.log(`provisioning ${meters} external meters, a fresh store (and Mosquitto) for each pass`);
const e1 = await provisionMany(embedded, meters, 1);
const d1 = await onFreshMosquitto((m) => provisionMany(dynsec(m), meters, 1));
console.log(
  `  one at a time      embedded ${fmt(e1)}   mosquitto dynsec ${fmt(d1)}   ratio ${(d1 / e1).toFixed(1)}x`,
);
const eN = await provisionMany(embedded, meters, concurrency);
const dN = await onFreshMosquitto((m) => provisionMany(dynsec(m), meters, concurrency));
console.log(
  `  ${concurrency} concurrently    embedded ${fmt(eN)}   mosquitto dynsec ${fmt(dN)}   ratio ${(dN / eN).toFixed(1)}x`,
);

// The dynsec client alone, every login asked at once, then again as a restart's restore does.
await onFreshMosquitto(async (m) => {
  const admin = await connectAsync(m.url, { ...m.admin, reconnectPeriod: 0 });
  const client = await DynsecClient.open({ mqtt: admin, url: m.url, timeoutMs: 600_000 });
  const t0 = performance.now();
  await Promise.all(Array.from({ length: meters }, (_, i) => client.addMeter(`BENCH${i}`, `pw-${i}`)));
  const fresh = (performance.now() - t0) / meters;
  const t1 = performance.now();
  await Promise.all(
    Array.from({ length: meters }, (_, i) => client.addMeter(`BENCH${i}`, `pw-${i}`, { restore: true })),
  );
  const again = (performance.now() - t1) / meters;
  console.log(
    `  dynsec client, all at once: new logins ${fmt(fresh)}; restored (already there) ${fmt(again)}`,
  );
  client.close();
  await admin.endAsync(true);
});
