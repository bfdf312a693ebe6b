// The web console and the event stream at fleet scale (issue 9, speed): METERS VirtualMeters (in this
// process, as external devices, as bench/fleet.ts does) publish telemetry every PERIOD_S seconds to one
// `meterstack serve` child, plus one hand-driven external meter (a real mqtt.js client with its own
// credentials). Three measurements, with the whole fleet publishing throughout:
//   1. render: the fleet view in headless Chromium, from the token to the first rows and the count of
//      every meter on screen; target <= 1.5 s.
//   2. latency: the hand meter publishes `state` with its relay toggled; from just before the publish
//      (Date.now here) to a MutationObserver in the page seeing the relay cell change (Date.now there,
//      the same machine clock), the fleet view filtered to that meter; target p95 <= 1 s.
//   3. cost: serve's CPU (from /proc) over a window with one console open on the fleet view AND a Node
//      reader of /sim/v1/events/stream reading everything, vs the same window with neither, interleaved
//      (neither, both, both, neither, ...) to cancel drift; target median(both) / median(neither) <= 1.10.
//
// Run: npx tsx bench/console.ts [--meters 10000] [--period 10] [--window 60] [--rounds 3] [--settle 10]
//                               [--renders 3] [--changes 60] [--with console,stream]
// Quick: npx tsx bench/console.ts --meters 1000 --window 15 --rounds 1 --renders 1 --changes 50
// SERVE_CPU_PROF=dir profiles the serve child (node --cpu-prof), as in fleet.ts.

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { MqttClient } from 'mqtt';
import { encode } from '../firmware-protocol/mqtt/codec.ts';
import { topicFor } from '../firmware-protocol/mqtt/topics.ts';
import { VirtualClock } from '../simulator/clock.ts';
import { Fleet } from '../simulator/meter-fleet.ts';
import { connectMqtt } from '../src/mqtt/connect.ts';
import {
  launchBrowser,
  type OpenConsole,
  openFleet,
  readStream,
  type StreamReader,
  watchRelay,
} from './support/console-page.ts';
import { meterFor, provisionExternal } from './support/external-fleet.ts';
import { pool, startServe } from './support/serve-process.ts';

const { values: flags } = parseArgs({
  options: {
    meters: { type: 'string', default: '10000' },
    period: { type: 'string', default: '10' },
    window: { type: 'string', default: '60' },
    rounds: { type: 'string', default: '3' },
    settle: { type: 'string', default: '10' },
    renders: { type: 'string', default: '3' },
    changes: { type: 'string', default: '60' },
    with: { type: 'string', default: 'console,stream' },
  },
});
const METERS = Number(flags.meters);
const PERIOD_MS = Number(flags.period) * 1000;
const WINDOW_S = Number(flags.window);
const ROUNDS = Number(flags.rounds);
const SETTLE_S = Number(flags.settle);
const RENDERS = Number(flags.renders);
const CHANGES = Number(flags.changes);
/** What the `both` windows open: both by default; one alone tells which costs what. */
const WITH = new Set(flags.with.split(','));
const TOTAL = METERS + 1; // the fleet and the hand meter
const HAND_ID = 'HAND-00000';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * p) - 1]!;
const load = () => loadavg()[0]!.toFixed(2);
const n = (x: number) => Math.round(x).toLocaleString('en');

const dir = mkdtempSync(join(tmpdir(), 'meterstack-bench-console-'));
const serve = await startServe(
  ['--http-port=0', '--mqtt-port=0', `--db=${join(dir, 'bench.db')}`, '--no-demo', '--rate-limit=0'],
  {
    nodeArgs: process.env.SERVE_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SERVE_CPU_PROF}`]
      : [],
  },
);
const clock = new VirtualClock();
const fleet = new Fleet({ clock, tickMs: 250 });
let warnings = 0;
const log = (level: string) => {
  if (level !== 'info') warnings++;
};
const browser = await launchBrowser();
// The service's own word on stream clients it dropped for not reading (src/extensions/journal/extension.ts).
let streamDrops = 0;
serve.onLine((line) => {
  if (line.includes('dropped a stream client')) streamDrops++;
});
let hand = null as MqttClient | null; // `as`: set in startHand, which TS's flow analysis cannot see

/** The fleet: provisioned through /sim/v1, connected and publishing. */
async function startFleet(account_id: number): Promise<void> {
  const t0 = performance.now();
  const devices = await provisionExternal(serve, account_id, METERS, 'CON');
  const meters = meterFor(devices, { clock, mqttUrl: serve.mqttUrl, periodMs: PERIOD_MS, log });
  await pool(meters, 200, (m) => fleet.add(m));
  fleet.start();
  const connected = meters.filter((m) => m.connected).length;
  console.log(
    `  ${n(METERS)} meters provisioned and connected in ${((performance.now() - t0) / 1000).toFixed(1)} s ` +
      `(${n(connected)} connected), publishing every ${PERIOD_MS / 1000} s; serve RSS ${n(serve.rssMiB())} MiB`,
  );
}

/** The hand-driven meter: online, and a `state` publisher whose relay this bench toggles. */
async function startHand(account_id: number) {
  const d = await serve.sim<{ device_id: string; mqtt: { username: string; password: string } }>(
    'POST',
    '/devices',
    { account_id, external: true, device_id: HAND_ID },
  );
  hand = await connectMqtt({
    url: serve.mqttUrl,
    clientId: d.device_id,
    username: d.mqtt.username,
    password: d.mqtt.password,
    reconnectPeriod: 0,
  });
  const client = hand;
  let lastTs = 0;
  const publishState = (relay: boolean) => {
    lastTs = Math.max(Date.now(), lastTs + 1); // [MC-5.1] never older than the state held
    const state = {
      v: 1 as const,
      ts: lastTs,
      mode: 'postpaid' as const,
      relay_commanded: relay,
      relay_state: relay,
      eb_tariff: 800,
      dg_tariff: 2000,
      active_tariff: 1 as const,
      balance: 50_000,
      pg_enabled: false,
      wifi_type: 'Primary' as const,
    };
    return client.publishAsync(topicFor(HAND_ID, 'state'), encode('state', state), { qos: 1, retain: true });
  };
  await client.publishAsync(
    topicFor(HAND_ID, 'availability'),
    encode('availability', { v: 1, online: true, ts: Date.now() }),
    { qos: 1, retain: true },
  );
  await publishState(false);
  return publishState;
}

async function measureRenders(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < RENDERS; i++) {
    const c = await openFleet(browser, serve.httpUrl, serve.adminToken, TOTAL);
    times.push(c.renderMs);
    await c.close();
    await sleep(2000);
  }
  return times;
}

/** Latencies of CHANGES relay changes, ms; a change not on screen within 10 s counts as Infinity. */
async function measureLatency(publishState: (relay: boolean) => Promise<unknown>): Promise<number[]> {
  const c = await openFleet(browser, serve.httpUrl, serve.adminToken, TOTAL);
  try {
    const watch = await watchRelay(c.page, HAND_ID, TOTAL);
    const latencies: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      // From what the cell shows: after a miss the next change is still one the cell can show.
      const relay = !(await watch.shown());
      const from = await watch.mark();
      const t0 = Date.now();
      await publishState(relay);
      const seen = await watch.seenAt(from, relay, 10_000);
      latencies.push(seen === null ? Number.POSITIVE_INFINITY : seen - t0);
      await sleep(100 + Math.random() * 300); // changes spread over the telemetry's second
    }
    return latencies;
  } finally {
    await c.close();
  }
}

/** What one read of GET /sim/v1/fleet (the console's poll) costs serve: wall and CPU ms, means of 5. */
async function measureFleetRead(): Promise<{ wallMs: number; cpuMs: number; bytes: number }> {
  let wall = 0;
  let cpu = 0;
  let bytes = 0;
  for (let i = 0; i < 5; i++) {
    const cpu0 = serve.cpuSeconds();
    const t0 = performance.now();
    const res = await fetch(`${serve.httpUrl}/sim/v1/fleet`, {
      headers: { 'x-admin-token': serve.adminToken },
    });
    bytes = (await res.arrayBuffer()).byteLength;
    wall += performance.now() - t0;
    cpu += serve.cpuSeconds() - cpu0;
    await sleep(500);
  }
  return { wallMs: wall / 5, cpuMs: (1000 * cpu) / 5, bytes };
}

interface CostWindow {
  mode: 'neither' | 'both';
  cpuS: number;
  seconds: number;
  streamBytes: number;
  streamEvents: number;
  /** Stream clients the service dropped, and times the reader had to resume, over the window. */
  drops: number;
  ends: number;
}

/** One window: with `both`, a console on the fleet view and a stream reader, opened SETTLE_S before. */
async function measureWindow(mode: CostWindow['mode']): Promise<CostWindow> {
  let page: OpenConsole | null = null;
  let stream: StreamReader | null = null;
  if (mode === 'both') {
    if (WITH.has('console')) page = await openFleet(browser, serve.httpUrl, serve.adminToken, TOTAL);
    if (WITH.has('stream')) stream = readStream(serve.httpUrl, serve.adminToken);
  }
  await sleep(SETTLE_S * 1000);
  const bytes0 = stream?.bytes ?? 0;
  const events0 = stream?.events ?? 0;
  const drops0 = streamDrops;
  const ends0 = stream?.ends ?? 0;
  const cpu0 = serve.cpuSeconds();
  const t0 = performance.now();
  const mono0 = process.hrtime.bigint() / 1000n; // µs, CLOCK_MONOTONIC: the clock of a .cpuprofile
  await sleep(WINDOW_S * 1000);
  if (process.env.SERVE_CPU_PROF)
    console.log(`  (${mode} window: monotonic µs ${mono0} to ${process.hrtime.bigint() / 1000n})`);
  const w: CostWindow = {
    mode,
    cpuS: serve.cpuSeconds() - cpu0,
    seconds: (performance.now() - t0) / 1000,
    streamBytes: (stream?.bytes ?? 0) - bytes0,
    streamEvents: (stream?.events ?? 0) - events0,
    drops: streamDrops - drops0,
    ends: (stream?.ends ?? 0) - ends0,
  };
  stream?.stop();
  await page?.close();
  return w;
}

try {
  console.log(
    `console: ${n(METERS)} VirtualMeters + 1 hand-driven meter -> one serve process (pid ${serve.pid}); ` +
      `${cpus().length} cores, load ${load()}`,
  );
  const { account_id } = await serve.sim<{ account_id: number }>('POST', '/accounts', { name: 'console' });
  await startFleet(account_id);
  const publishState = await startHand(account_id);
  await sleep(PERIOD_MS); // every meter has published once

  const renders = await measureRenders();
  console.log(
    `  render: fleet view with ${n(TOTAL)} meters, token -> first rows and count: ` +
      `${renders.map((ms) => `${ms} ms`).join(', ')}; median ${median(renders)} ms ` +
      `(${median(renders) <= 1500 ? 'target met' : 'TARGET MISSED'}, <= 1500 ms); load ${load()}`,
  );

  const lat = await measureLatency(publishState);
  const p95 = pct(lat, 0.95);
  console.log(
    `  latency: ${lat.length} relay changes, MQTT state publish -> relay cell changed in the page: ` +
      `p50 ${pct(lat, 0.5)} ms, p95 ${p95} ms, max ${Math.max(...lat)} ms, ` +
      `${lat.filter((x) => x === Number.POSITIVE_INFINITY).length} not on screen within 10 s ` +
      `(${p95 <= 1000 ? 'target met' : 'TARGET MISSED'}, p95 <= 1000 ms); ` +
      `stream clients dropped by serve so far ${streamDrops}; load ${load()}`,
  );

  const read = await measureFleetRead();
  console.log(
    `  one GET /sim/v1/fleet (${n(TOTAL)} rows, ${n(read.bytes / 1024)} KiB), the console's poll every ` +
      `${n(Math.max(5000, TOTAL * 3) / 1000)} s with a live stream: ${read.wallMs.toFixed(0)} ms, ` +
      `~${read.cpuMs.toFixed(0)} ms of serve CPU (means of 5; the fleet's own work included)`,
  );

  const windows: CostWindow[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate the order (neither/both, both/neither, ...): serve's CPU creeps up over a run (its heap
    // and journal fill), and a fixed order would charge that creep to the later window of each pair.
    const order = r % 2 === 0 ? (['neither', 'both'] as const) : (['both', 'neither'] as const);
    for (const mode of order) {
      const w = await measureWindow(mode);
      windows.push(w);
      const stream =
        mode === 'both'
          ? `; stream read ${n(w.streamEvents)} events, ${n(w.streamBytes / 1024)} KiB, ${w.ends} resumes; ${w.drops} stream clients dropped by serve`
          : '';
      console.log(
        `  cost round ${r + 1} ${mode.padEnd(7)}: serve ${w.cpuS.toFixed(2)} CPU s over ${w.seconds.toFixed(1)} s ` +
          `(${((100 * w.cpuS) / w.seconds).toFixed(1)}% of a core)${stream}; load ${load()}`,
      );
    }
  }
  const cpuOf = (mode: CostWindow['mode']) =>
    median(windows.filter((w) => w.mode === mode).map((w) => w.cpuS / w.seconds));
  const ratio = cpuOf('both') / cpuOf('neither');
  console.log(
    `  cost: serve CPU with ${[...WITH].join(' + ')} / with neither = ${ratio.toFixed(3)}× ` +
      `(medians ${(100 * cpuOf('both')).toFixed(1)}% / ${(100 * cpuOf('neither')).toFixed(1)}% of a core; ` +
      `${ratio <= 1.1 ? 'target met' : 'TARGET MISSED'}, <= 1.10)`,
  );
  console.log(
    `  meter warnings ${warnings}; stream clients dropped by serve over the run ${streamDrops}; page errors ${browser.errors.length}; serve RSS ${n(serve.rssMiB())} MiB; load ${load()}`,
  );
} finally {
  await hand?.endAsync(true);
  await browser.close();
  await fleet.stop();
  await serve.stop('SIGTERM');
  await serve.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
