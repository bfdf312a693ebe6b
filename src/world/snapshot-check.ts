// [SNAP-4] A world snapshot's values checked before a restore touches the world (issue 18 item 5,
// spec-decisions 138): the clock and speed within the live routes' bounds (./bounds.ts), every meter's
// state readable and of its device, no meter further behind the clock than one live clock advance, every
// ledger amount one a client could have made, and every meter agreeing with its ledger [M-15]. Pure: the
// store reads the snapshot (Store.readWorldSnapshot), this says what is wrong with it.

import { readMeterSnapshot } from '../../simulator/meter/index.ts';
import type { LedgerEntry, WorldSnapshotContents } from '../store/types.ts';
import { SNAPSHOT_CLOCK_MAX, SNAPSHOT_CLOCK_MIN } from '../store/world-tables.ts';
import { advanceSeconds, openingBalance, rechargeAmount, speed, tariff, telemetryPeriodS } from './bounds.ts';
import { ledgerCheck, paiseText } from './ledger-check.ts';
import { creditEntry } from './meter-snapshot.ts';

/** At most this many problems are named; the rest are counted. */
const MAX_NAMED = 8;
const MAX_BEHIND_MS = advanceSeconds.maxValue! * 1000;
const iso = (ms: number) =>
  Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : String(ms);

/** Every problem found, in words naming the device or value; empty when the snapshot may be restored. */
export function snapshotProblems(c: WorldSnapshotContents): string[] {
  const problems: string[] = [];
  const { clock } = c.info;
  if (!Number.isSafeInteger(clock) || clock < SNAPSHOT_CLOCK_MIN || clock >= SNAPSHOT_CLOCK_MAX)
    problems.push(`clock ${iso(clock)} is outside 2000-01-01..2100-01-01`);
  if (!speed.safeParse(c.info.speed).success)
    problems.push(
      `speed ${c.info.speed} is outside ${speed.minValue}..${speed.maxValue} (POST /sim/v1/clock/speed)`,
    );

  const devices = new Map(c.devices.map((d) => [d.pk, d]));
  const ledger = new Map<number, LedgerEntry[]>();
  const transactions = new Set<string>();
  for (const e of c.ledger) {
    const device = devices.get(e.devicePk);
    const who = device ? device.deviceId : `device pk ${e.devicePk}`;
    if (!device) problems.push(`ledger entry ${e.seq} is of no device (pk ${e.devicePk})`);
    const bound = e.kind === 'opening' ? openingBalance : e.kind === 'recharge' ? rechargeAmount : null;
    if (bound ? !bound.safeParse(e.amount).success : !Number.isSafeInteger(e.amount))
      problems.push(`ledger entry ${e.seq} (${who}, ${e.kind}) of ${e.amount} paise is out of bounds`);
    if (e.transactionId !== null) {
      if (transactions.has(e.transactionId))
        problems.push(`ledger transaction ${e.transactionId} appears twice`);
      transactions.add(e.transactionId);
    }
    ledger.set(e.devicePk, [...(ledger.get(e.devicePk) ?? []), e]);
  }

  const seen = new Set<string>();
  for (const d of c.devices) {
    if (seen.has(d.deviceId)) problems.push(`device ${d.deviceId} appears twice`);
    seen.add(d.deviceId);
  }
  for (const snap of c.meters) {
    const device = devices.get(snap.devicePk);
    if (device?.kind !== 'virtual') {
      problems.push(`a meter snapshot is of no virtual device (pk ${snap.devicePk})`);
      continue;
    }
    problems.push(
      ...meterProblems(device.deviceId, snap.state, snap.ledgerSeq, ledger.get(snap.devicePk) ?? [], clock),
    );
  }
  return problems;
}

function meterProblems(
  id: string,
  text: string,
  ledgerSeq: number,
  entries: LedgerEntry[],
  clock: number,
): string[] {
  let state: ReturnType<typeof readMeterSnapshot>['state'];
  let chargedKnown: boolean;
  try {
    const body = JSON.parse(text) as { v?: unknown; online?: unknown; meter?: unknown };
    if (body.v !== 1 || typeof body.online !== 'boolean' || typeof body.meter !== 'string')
      return [`meter ${id}: its snapshot is not a meter snapshot of this build`];
    ({ state, chargedKnown } = readMeterSnapshot(body.meter));
  } catch (err) {
    return [`meter ${id}: its state cannot be read (${(err as Error).message.slice(0, 80)})`];
  }
  const problems: string[] = [];
  if (state.deviceId !== id)
    problems.push(`meter ${id}: its state is of device ${state.deviceId.slice(0, 64)}`);
  if (
    !Number.isSafeInteger(state.lastTs) ||
    state.lastTs < SNAPSHOT_CLOCK_MIN ||
    state.lastTs >= SNAPSHOT_CLOCK_MAX
  )
    problems.push(`meter ${id}: its time ${iso(state.lastTs)} is outside 2000-01-01..2100-01-01`);
  else if (clock - state.lastTs > MAX_BEHIND_MS)
    problems.push(`meter ${id}: its time ${iso(state.lastTs)} is more than 10 years behind the clock`);
  for (const [name, v] of [
    ['eb tariff', state.ebTariff],
    ['dg tariff', state.dgTariff],
  ] as const)
    if (!tariff.safeParse(v).success) problems.push(`meter ${id}: ${name} ${v} is out of bounds`);
  if (!telemetryPeriodS.safeParse(state.telemetryPeriodMs / 1000).success)
    problems.push(`meter ${id}: telemetry period ${state.telemetryPeriodMs} ms is out of bounds`);
  if (problems.length > 0 || !chargedKnown) return problems;
  // [M-15] The meter as the restore makes it (every newer entry credited) must agree with its ledger.
  let total = 0;
  for (const e of entries) {
    total += e.amount;
    if (e.seq > ledgerSeq) state = creditEntry(state, e);
  }
  if (!Number.isSafeInteger(total)) return [`meter ${id}: its ledger does not sum to a safe integer`];
  const check = ledgerCheck(state, total);
  if (!check.agrees)
    problems.push(
      `meter ${id}: its balance ${paiseText(check.meterUnits)} paise disagrees with its ledger (${total} paise − billed ${paiseText(check.chargedUnits)})`,
    );
  return problems;
}

/** The problems as one sentence, or null when there are none. */
export function snapshotRefusal(problems: string[]): string | null {
  if (problems.length === 0) return null;
  const more = problems.length > MAX_NAMED ? `; and ${problems.length - MAX_NAMED} more` : '';
  return `the snapshot cannot be restored: ${problems.slice(0, MAX_NAMED).join('; ')}${more}`;
}
