// Issue 11 §4, speed: GET device throughput on one API instance vs two with the load split across them,
// and the CPU each process spends per request (from /proc/<pid>/stat), the load generator's included.
// Topology: a plain Mosquitto on an ephemeral port (test/helpers/plain-mosquitto.ts), one world process
// (`serve --broker`, holding one virtual meter) and two `serve --api-only` instances on one SQLite file,
// rate limit off. Peer in the same run: the one-instance figure. On this 2-core machine the load
// generator (autocannon, in this process) competes with the instances for the same cores: where the sum
// of CPU is ~2 cores the figure is capped by the machine, not the instances, and the per-request CPU
// predicts the scaling instead (requests/s per core = 1 / CPU s per request).
//
// Run: npm run build && npx tsx bench/api-instances.ts [--duration 10] [--connections 20] [--rounds 2]

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startPlainMosquitto } from '../test/helpers/plain-mosquitto.ts';
import { type Serve, startServe } from './support/serve-process.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '2' },
  },
});
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
const TOKEN = 'bench-admin-token';

interface Run {
  rps: number;
  p50: number;
  p99: number;
  bad: number;
  /** CPU ms per request: each instance, the world, and this process (the load generator). */
  cpuMsPerReq: Record<string, number>;
  /** Cores busy over the run, all processes together. */
  cores: number;
}

function selfCpuS(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function measure(
  targets: Serve[],
  all: Record<string, Serve>,
  path: string,
  key: string,
): Promise<Run> {
  const before = Object.fromEntries(Object.entries(all).map(([n, s]) => [n, s.cpuSeconds()]));
  const selfBefore = selfCpuS();
  const started = performance.now();
  const per = Math.max(1, Math.round(CONNECTIONS / targets.length));
  const results = await Promise.all(
    targets.map((t) =>
      autocannon({
        url: `${t.httpUrl}${path}`,
        headers: { 'x-service-api-key': key },
        connections: per,
        duration: DURATION,
      }),
    ),
  );
  const wallS = (performance.now() - started) / 1000;
  const total = results.reduce((n, r) => n + r.requests.total, 0);
  const cpuMsPerReq: Record<string, number> = {};
  let cpuS = 0;
  for (const [n, s] of Object.entries(all)) {
    const used = s.cpuSeconds() - before[n]!;
    cpuS += used;
    cpuMsPerReq[n] = (used * 1000) / total;
  }
  const self = selfCpuS() - selfBefore;
  cpuS += self;
  cpuMsPerReq.loadgen = (self * 1000) / total;
  return {
    rps: total / wallS,
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    bad: results.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
    cpuMsPerReq,
    cores: cpuS / wallS,
  };
}

const fmt = (r: Run) =>
  `${Math.round(r.rps).toString().padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  bad ${r.bad}  ` +
  `cores busy ${r.cores.toFixed(2)}  CPU ms/req ${Object.entries(r.cpuMsPerReq)
    .map(([n, v]) => `${n} ${v.toFixed(3)}`)
    .join(', ')}`;

const dir = mkdtempSync(join(tmpdir(), 'ms-bench-inst-'));
const mosq = await startPlainMosquitto();
const servers: Serve[] = [];
try {
  const common = [
    ...[
      '--db',
      join(dir, 'shared.db'),
      '--broker',
      `mqtt://svc:pw@127.0.0.1:${mosq.port}`,
      '--broker-logins',
      'unmanaged',
    ],
    ...['--http-port', '0', '--rate-limit', '0', '--log-level', 'warn'],
  ];
  const world = await startServe([...common, '--no-demo'], { adminToken: TOKEN });
  servers.push(world);
  const a = await startServe([...common, '--api-only'], { adminToken: TOKEN });
  servers.push(a);
  const b = await startServe([...common, '--api-only'], { adminToken: TOKEN });
  servers.push(b);
  const account = await world.sim<{ account_id: number; api_key: string }>('POST', '/accounts', {
    name: 'bench',
  });
  const space = await world.sim<{ space_id: number }>('POST', '/spaces', {
    account_id: account.account_id,
    name: 'S',
  });
  const dev = await world.sim<{ device_id: string }>('POST', '/devices', {
    account_id: account.account_id,
    space_id: space.space_id,
  });
  const path = `/api/v2/devices/${dev.device_id}/`;
  const all = { world, a, b };
  console.log(
    `GET ${path} for ${DURATION} s, ${CONNECTIONS} connections in all, ${ROUNDS} round(s), ${cpus().length} cores (${cpus()[0]?.model})`,
  );
  // Warm-up: JIT and caches on both instances.
  {
    const warm = { duration: 2, connections: 4, headers: { 'x-service-api-key': account.api_key } };
    await Promise.all([a, b].map((t) => autocannon({ ...warm, url: `${t.httpUrl}${path}` })));
  }
  const ones: Run[] = [];
  const twos: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved, so drift of the machine hits both alike.
    const one = await measure([a], all, path, account.api_key);
    ones.push(one);
    console.log(`  one instance : ${fmt(one)}`);
    const two = await measure([a, b], all, path, account.api_key);
    twos.push(two);
    console.log(`  two instances: ${fmt(two)}`);
  }
  const best = (rs: Run[]) => rs.reduce((x, y) => (y.rps > x.rps ? y : x));
  const one = best(ones);
  const two = best(twos);
  const perInstanceMs = one.cpuMsPerReq.a!;
  console.log('');
  // Other work on the machine (other benchmarks, tests) takes cores the figures above do not count.
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (1, 5, 15 min), ${cpus().length} cores`,
  );
  console.log(
    `best one instance  ${Math.round(one.rps)} req/s; best two instances ${Math.round(two.rps)} req/s: ${(two.rps / one.rps).toFixed(2)}×`,
  );
  console.log(
    `CPU per request: instance ${perInstanceMs.toFixed(3)} ms (one), ` +
      `${(two.cpuMsPerReq.a! + two.cpuMsPerReq.b!).toFixed(3)} ms (two, summed), load generator ${one.cpuMsPerReq.loadgen!.toFixed(3)} ms`,
  );
  console.log(
    `cores busy: ${one.cores.toFixed(2)} (one), ${two.cores.toFixed(2)} (two) of ${cpus().length}` +
      (two.cores > cpus().length * 0.85
        ? ': the machine is saturated, the load generator shares the cores; the scaling is capped here'
        : ''),
  );
  console.log(
    `predicted on free cores: one instance per core ≈ ${Math.round(1000 / perInstanceMs)} req/s, N instances on N cores ≈ N × that ` +
      `(the store read per request is shared: SQLite WAL readers do not block each other)`,
  );
} finally {
  for (const s of servers.reverse()) await s.stop();
  await mosq.stop();
  rmSync(dir, { recursive: true, force: true });
}
