// Issue 10 speed targets of the typed client and the test harness:
// 1. GET /api/v2/devices/{id}/ through meterstack/client (settle(api.GET), default options: retries
//    armed, no attempt timer) vs bare `fetch` + `res.json()`, against one `meterstack serve` child;
//    N sequential and N concurrent calls of each, interleaved over rounds, medians compared; also the
//    client with `timeoutMs: 30000` (an AbortSignal.timeout per request). Target: ≥ 0.9× bare fetch.
//    On a shared machine the network figures swing by ±15 % run to run, so also: the client's own CPU
//    per call with a canned answer and no network, against bare fetch's handling of the same answer.
// 2. startMeterstack() to a ready world of 10 meters (target ≤ 1 s) and stop() (≤ 200 ms), in
//    this process; the first run pays module warm-up, so it is reported apart.
//
//   npx tsx bench/client.ts [--calls 1000] [--concurrency 10] [--rounds 9] [--starts 6]

import { parseArgs } from 'node:util';
import { createMeterstackClient } from '../src/client/index.ts';
import { startMeterstack } from '../src/harness/index.ts';
import { startServe } from './support/serve-process.ts';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '9' },
    starts: { type: 'string', default: '6' },
  },
});
const CALLS = Number(values.calls);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
const STARTS = Number(values.starts);
const DEVICE = 'MTR-BENCH-1';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

async function clientVsFetch(): Promise<void> {
  const serve = await startServe([
    '--http-port=0',
    '--mqtt-port=0',
    '--db=:memory:',
    '--no-demo',
    '--rate-limit=0',
  ]);
  try {
    const account = await serve.sim<{ account_id: number; api_key: string }>('POST', '/accounts', {
      name: 'bench',
    });
    const space = await serve.sim<{ space_id: number }>('POST', '/spaces', {
      account_id: account.account_id,
      name: 'bench',
    });
    await serve.sim('POST', '/devices', {
      account_id: account.account_id,
      space_id: space.space_id,
      device_id: DEVICE,
      mode: 'postpaid',
    });
    const key = account.api_key;
    const url = `${serve.httpUrl}/api/v2/devices/${DEVICE}/`;
    const bare = async () => {
      const res = await fetch(url, { headers: { 'x-service-api-key': key } });
      const body = (await res.json()) as { success: boolean; data: { is_online: boolean } };
      if (!res.ok || !body.success) throw new Error(`bare fetch: ${res.status}`);
      return body.data.is_online;
    };
    const ms = createMeterstackClient({ baseUrl: serve.httpUrl, apiKey: key });
    const timedMs = createMeterstackClient({ baseUrl: serve.httpUrl, apiKey: key, timeoutMs: 30_000 });
    const timed = async () => {
      const r = await timedMs.settle(
        timedMs.api.GET('/api/v2/devices/{device_id}/', { params: { path: { device_id: DEVICE } } }),
      );
      if (!r.ok) throw r.error;
      return r.data.is_online;
    };
    const typed = async () => {
      const r = await ms.settle(
        ms.api.GET('/api/v2/devices/{device_id}/', { params: { path: { device_id: DEVICE } } }),
      );
      if (!r.ok) throw r.error;
      return r.data.is_online;
    };
    const sequential = async (call: () => Promise<boolean>) => {
      for (let i = 0; i < CALLS; i++) await call();
    };
    const concurrent = async (call: () => Promise<boolean>) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next++ < CALLS) await call();
        }),
      );
    };
    // Requests/s, and this process's CPU µs per call: on a shared machine the wall figure swings with
    // the neighbours' load, the CPU a call costs the client much less.
    const calls = { bare, typed, timed };
    type Which = keyof typeof calls;
    const cpu: Record<Which, number[]> = { bare: [], typed: [], timed: [] };
    const rate = async (which: Which, run: () => Promise<void>) => {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await run();
      const c = process.cpuUsage(c0);
      cpu[which].push((c.user + c.system) / CALLS);
      return CALLS / ((performance.now() - t0) / 1000);
    };
    // Warm-up: every path, JIT and connections.
    for (const call of Object.values(calls)) await sequential(call);
    for (const [mode, run] of [
      ['sequential', sequential],
      [`concurrent ×${CONCURRENCY}`, concurrent],
    ] as const) {
      const got: Record<Which, number[]> = { bare: [], typed: [], timed: [] };
      for (const list of Object.values(cpu)) list.length = 0;
      for (let r = 0; r < ROUNDS; r++) {
        // Alternate which goes first, so neither always meets a warmer or cooler server.
        const order: Which[] = r % 2 === 0 ? ['bare', 'typed', 'timed'] : ['timed', 'typed', 'bare'];
        for (const which of order) got[which].push(await rate(which, () => run(calls[which])));
      }
      const b = median(got.bare);
      const t = median(got.typed);
      const tt = median(got.timed);
      console.log(
        `GET device, ${mode}, ${CALLS} calls × ${ROUNDS} rounds: bare fetch ${b.toFixed(0)} req/s, ` +
          `typed client ${t.toFixed(0)} req/s → ${(t / b).toFixed(3)}× (target ≥ 0.9); client CPU per call ` +
          `${median(cpu.bare).toFixed(0)} µs bare, ${median(cpu.typed).toFixed(0)} µs typed`,
      );
      console.log(
        `  with timeoutMs 30000: ${tt.toFixed(0)} req/s → ${(tt / b).toFixed(3)}×, ${median(cpu.timed).toFixed(0)} µs per call`,
      );
    }
  } finally {
    await serve.stop();
  }
}

async function harnessStartStop(): Promise<void> {
  const world = {
    accounts: [
      {
        name: 'bench',
        spaces: [
          {
            name: 'Block A',
            meters: Array.from({ length: 10 }, (_, i) => ({
              id: `MTR-H${i}`,
              mode: 'prepaid' as const,
              balance: 10_000,
              load_watts: 500,
            })),
          },
        ],
      },
    ],
  };
  const starts: number[] = [];
  const stops: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const t0 = performance.now();
    const ms = await startMeterstack({ world });
    const t1 = performance.now();
    // Ready: every meter answers online through the v2 API.
    for (let m = 0; m < 10; m++) {
      const r = await ms.client.device(`MTR-H${m}`);
      if (!r.ok || !r.data.is_online) throw new Error(`MTR-H${m} not ready`);
    }
    const t2 = performance.now();
    await ms.stop();
    starts.push(t1 - t0);
    stops.push(performance.now() - t2);
  }
  const [firstStart, ...warmStarts] = starts;
  const [firstStop, ...warmStops] = stops;
  console.log(
    `startMeterstack(10 meters): first ${firstStart!.toFixed(0)} ms, then median ${median(warmStarts).toFixed(0)} ms ` +
      `(max ${Math.max(...warmStarts).toFixed(0)}) over ${warmStarts.length} (target ≤ 1000)`,
  );
  console.log(
    `stop(): first ${firstStop!.toFixed(0)} ms, then median ${median(warmStops).toFixed(0)} ms ` +
      `(max ${Math.max(...warmStops).toFixed(0)}) (target ≤ 200)`,
  );
}

/** What the client adds per call, without the network: a canned answer through both paths. */
async function overheadWithoutNetwork(): Promise<void> {
  const body = JSON.stringify({
    success: true,
    data: { device_id: DEVICE, is_online: true },
    timestamp: 'x',
  });
  const canned = async (_url: string, _init: RequestInit) =>
    new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  const bare = async () => {
    const res = await canned(`http://x/api/v2/devices/${DEVICE}/`, { headers: { 'x-service-api-key': 'k' } });
    return ((await res.json()) as { data: { is_online: boolean } }).data.is_online;
  };
  const ms = createMeterstackClient({ baseUrl: 'http://x', apiKey: 'k', fetch: canned });
  const typed = async () => {
    const r = await ms.settle(
      ms.api.GET('/api/v2/devices/{device_id}/', { params: { path: { device_id: DEVICE } } }),
    );
    if (!r.ok) throw r.error;
    return r.data.is_online;
  };
  const N = 20_000;
  const cpuPerCall = async (call: () => Promise<boolean>) => {
    for (let i = 0; i < 2000; i++) await call();
    const c0 = process.cpuUsage();
    for (let i = 0; i < N; i++) await call();
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / N;
  };
  const b = [] as number[];
  const t = [] as number[];
  for (let r = 0; r < 3; r++) {
    b.push(await cpuPerCall(bare));
    t.push(await cpuPerCall(typed));
  }
  console.log(
    `no network, canned answer: bare ${median(b).toFixed(1)} µs per call, typed client ${median(t).toFixed(1)} µs ` +
      `(+${(median(t) - median(b)).toFixed(1)} µs)`,
  );
}

await harnessStartStop();
await overheadWithoutNetwork();
await clientVsFetch();
