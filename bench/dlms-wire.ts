// Issue 21's speed target for the meter side: a full register read of one meter over HDLC at 9,600 baud
// within 1.2× of the wire time its frames need.
//
// Run: npx tsx bench/dlms-wire.ts [--rounds 5] [--baud 9600] [--modes list,each,profile]
//
// `meterstack meter --protocol dlms --model full` runs as a child on one socat pty pair; our client (the
// pure session, the HDLC client link and FrameSplitter, as `meterstack bridge --dlms` uses them) on
// another; this process relays between the two at the line rate (support/paced-relay.ts). One read:
// SNRM/UA, AARQ/AARE as the meter reader (client 32, LLS), every register of the instantaneous set with
// its scaler and unit, the clock, then RLRQ/RLRE and DISC/UA. Three ways to ask for the same things:
//   list     one GET with-list of every value and the clock, one of every scaler (what our bridge does)
//   each     one GET per value and per scaler (a reader without multiple references)
//   profile  the instantaneous profile and its scaler profile, capture objects and buffer (what an
//            IS 15959 head-end or handheld reader does: the profile is the parameter list)
// Each round of a mode runs twice: paced at the line rate, and unpaced (the relay carries bytes at once:
// the software's own share). Wire time = bytes both ways × 10 / baud: the peer, what a read with zero
// processing on either side would take. Each paced line splits the time over the wire time into the
// meter's reactions, the client's, and how late the relay's timers released bytes.

import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Call, Outcome } from '../firmware-protocol/dlms/client/calls.ts';
import { DEFAULT_SESSION } from '../firmware-protocol/dlms/client/session.ts';
import { OBIS } from '../firmware-protocol/dlms/cosem/obis.ts';
import { DlmsClient } from '../src/bridge/dlms/client.ts';
import { HdlcSerialTransport } from '../src/bridge/dlms/hdlc-serial.ts';
import { CliProcess, PtyPair, until } from '../test/bridge/helpers.ts';
import { tempDir } from '../test/helpers/service.ts';
import { PacedRelay, type RoundStats } from './support/paced-relay.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string' }, baud: { type: 'string' }, modes: { type: 'string' } },
});
const ROUNDS = Number(values.rounds ?? 5);
const BAUD = Number(values.baud ?? 9600);
type Mode = 'list' | 'each' | 'profile';
const MODES = (values.modes ?? 'list,each,profile').split(',') as Mode[];
const SERVER = { bytes: 2 as const, upper: 1, lower: 16 };
const PASSWORD = 'ABCDEFGH';

/** The instantaneous set (CO-6.1 – CO-6.3): class 3 registers have a scaler, class 1 counters none. */
const REGISTERS: [classId: 1 | 3, obis: string][] = [
  [3, OBIS.voltage],
  [3, OBIS.phaseCurrent],
  [3, OBIS.neutralCurrent],
  [3, OBIS.powerFactor],
  [3, OBIS.frequency],
  [3, OBIS.apparentPower],
  [3, OBIS.activePower],
  [3, OBIS.reactivePower],
  [3, OBIS.energyKwh],
  [3, OBIS.energyKvah],
  [3, OBIS.energyKwhExport],
  [3, OBIS.energyKvahExport],
  [3, OBIS.powerOnMinutes],
  [1, OBIS.tamperCount],
  [1, OBIS.billingCount],
  [1, OBIS.programmingCount],
];
const at = (classId: number, instance: string, attributeId: number) => ({
  attribute: { classId, instance, attributeId },
});
const clock = at(8, OBIS.clock, 2);
const valuesItems = [...REGISTERS.map(([c, o]) => at(c, o, 2)), clock];
const scalerItems = REGISTERS.filter(([c]) => c === 3).map(([c, o]) => at(c, o, 3));

function callsFor(mode: Mode): Call[] {
  if (mode === 'list')
    return [
      { kind: 'get-list', items: valuesItems },
      { kind: 'get-list', items: scalerItems },
    ];
  if (mode === 'each') return [...valuesItems, ...scalerItems].map((i) => ({ kind: 'get', ...i }));
  return [OBIS.instantaneousProfile, OBIS.instantaneousScaler].flatMap((o) => [
    { kind: 'get', ...at(7, o, 3) } as Call,
    { kind: 'get', ...at(7, o, 2) } as Call,
  ]);
}

/** Every result a value (a with-list's items too), or the reason the read is not a full one. */
function refusal(o: Outcome): string | null {
  if (o.kind === 'data') return null;
  if (o.kind === 'list') {
    const bad = o.results.findIndex((r) => r.kind !== 'data');
    return bad < 0 ? null : `item ${bad} refused`;
  }
  return o.kind === 'failed' ? `${o.reason}: ${o.message}` : o.kind;
}

/** One full read on the client's pty; resolves once DISC is written, throws if anything was refused. */
async function fullRead(path: string, mode: Mode): Promise<void> {
  const bad: string[] = [];
  const transport = new HdlcSerialTransport({ path, baud: BAUD, client: 32, server: SERVER });
  const client = new DlmsClient({
    transport,
    session: { ...DEFAULT_SESSION, password: PASSWORD },
    now: Date.now,
    onBad: (rule, reason) => bad.push(`${rule} ${reason}`),
    onLost: () => undefined,
  });
  await client.open().catch((e) => {
    throw new Error(`${e.message}; ${bad.join('; ')}`);
  });
  for (const call of callsFor(mode)) {
    const why = refusal(await client.call(call));
    if (why) bad.push(why);
  }
  await client.close();
  if (bad.length) throw new Error(`${mode}: ${bad.join('; ')}`);
}

const tmp = tempDir('meterstack-bench-dlms-wire-');
mkdirSync(`${tmp.dir}/m`);
const meterPair = await new PtyPair(`${tmp.dir}/m`).start();
const meter = new CliProcess([
  'meter',
  '--protocol',
  'dlms',
  '--serial',
  meterPair.a,
  '--device',
  'MTR-WIRE',
  '--model',
  'full',
  '--balance',
  '50000',
  '--load-watts',
  '1000',
  '--log-level',
  'info',
]);
const relay = new PacedRelay(BAUD);
let clientPairs = 0;
try {
  await until(() => meter.output.includes(`open at ${BAUD} baud`), 20_000, 'the meter to open its port');
  await relay.attach('meter', meterPair.b);
  console.log(`dlms-wire: ${BAUD} Bd 8N1, ${ROUNDS} rounds, modes ${MODES.join(', ')}; ms unless said`);
  await round('list', 'unpaced'); // warm-up, not a figure: both processes' code paths compiled
  for (const mode of MODES) await runMode(mode);
} catch (err) {
  console.error(`meter output:\n${meter.output}`);
  throw err;
} finally {
  await relay.close();
  await meter.stop();
  await meterPair.kill();
  tmp.remove();
}

type Kind = 'paced' | 'unpaced';

/**
 * One read, on a fresh pty pair for the client: a pty whose client closed and reopened it sometimes
 * passed nothing back to the new one (socat's side of a closed pty), a fault of the bench, not the link.
 */
async function round(mode: Mode, kind: Kind): Promise<RoundStats> {
  const dir = `${tmp.dir}/c${clientPairs++}`;
  mkdirSync(dir);
  const pair = await new PtyPair(dir).start();
  try {
    await relay.attach('client', pair.b);
    relay.begin({ paced: kind === 'paced' });
    await fullRead(pair.a, mode);
    await until(() => relay.answered, 5_000, 'the UA to DISC');
    return relay.end();
  } finally {
    await pair.kill();
  }
}

async function runMode(mode: Mode): Promise<void> {
  console.log(`\n${mode}: ${callsFor(mode).length} GETs`);
  console.log(
    'round  kind     bytes c→m/m→c  wire     elapsed  ratio   meter-react client-react timer-late max-late',
  );
  const ratios: Record<Kind, number[]> = { paced: [], unpaced: [] };
  let failed = 0;
  for (let r = 1; r <= ROUNDS; r++) {
    for (const kind of ['paced', 'unpaced'] as const) {
      let s: RoundStats;
      try {
        s = await round(mode, kind);
      } catch (err) {
        // Not a figure: said, counted, and the line left to settle before the next round.
        failed++;
        const late = relay.end().maxLateMs.toFixed(1);
        console.log(
          `${String(r).padStart(5)}  ${kind.padEnd(8)} FAILED (max-late ${late}): ${(err as Error).message}`,
        );
        await new Promise((res) => setTimeout(res, 1_500));
        continue;
      }
      const wire = wireMs(s);
      ratios[kind].push(s.elapsedMs / wire);
      console.log(line(r, kind, s, wire, s.elapsedMs / wire));
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  const p = med(ratios.paced);
  console.log(
    `${mode}: median elapsed / wire time: paced ${p.toFixed(3)}× (target ≤ 1.20: ${p <= 1.2 ? 'PASS' : 'MISS'}), ` +
      `unpaced ${med(ratios.unpaced).toFixed(3)}×; failed rounds ${failed}`,
  );
}

function wireMs(s: RoundStats): number {
  return ((s.bytes.client + s.bytes.meter) * 10 * 1000) / BAUD;
}

function line(r: number, kind: Kind, s: RoundStats, wire: number, ratio: number): string {
  const f = (n: number, w = 8) => n.toFixed(1).padStart(w);
  return (
    `${String(r).padStart(5)}  ${kind.padEnd(8)} ${`${s.bytes.client}/${s.bytes.meter}`.padStart(14)} ` +
    `${f(wire)} ${f(s.elapsedMs)} ${ratio.toFixed(3).padStart(6)}  ${f(s.reactionMs.meter, 11)} ` +
    `${f(s.reactionMs.client, 12)} ${f(s.lateMs, 10)} ${f(s.maxLateMs, 8)}`
  );
}
