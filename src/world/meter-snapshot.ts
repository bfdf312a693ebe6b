// What a virtual meter keeps across restarts (its "flash"): its state and whether it was online (its
// MQTT password is derived, never stored: SNAP-8, meter-secrets.ts). Money is safe across crashes because the ledger is written before a credit is
// applied, the snapshot records the newest ledger seq its state includes, and every ledger entry newer
// than that is applied on restore (the meter's transaction-id memory [MC-8.8] is only a second guard).

import { readMeterSnapshot, serializeMeter, step } from '../../simulator/meter/index.ts';
import type { MeterState } from '../../simulator/meter/types.ts';
import { UNITS_PER_PAISE } from '../../simulator/meter/types.ts';
import type { VirtualMeter } from '../../simulator/virtual-meter.ts';
import type { DeviceRecord, LedgerEntry, MeterSnapshot, Store } from '../store/types.ts';

export interface SnapshotBody {
  v: 1;
  /** Only in snapshots of an earlier build: dropped when the world opens [SNAP-8]. */
  secret?: string;
  online: boolean;
  meter: string;
  /** Set when the meter runs in a fleet worker (src/world/workers): the world keeps it but never runs it. */
  host?: { worker: string };
}

export function snapshotOf(
  meter: VirtualMeter,
  meta: { ledgerSeq: number; pk: number },
  now: number,
): MeterSnapshot {
  const body: SnapshotBody = {
    v: 1,
    online: meter.online,
    meter: serializeMeter(meter.state),
  };
  return { devicePk: meta.pk, state: JSON.stringify(body), ledgerSeq: meta.ledgerSeq, updatedAt: now };
}

/** The transaction id under which a ledger entry is credited to the meter. */
export function ledgerTransactionId(entry: LedgerEntry): string {
  return entry.transactionId ?? `ledger-${entry.seq}`;
}

/** Credits `entry` at the meter's own time, so nothing is integrated (and no telemetry lost) here. */
export function creditEntry(state: MeterState, entry: LedgerEntry): MeterState {
  if (entry.amount <= 0) return state;
  const transactionId = ledgerTransactionId(entry);
  return step(
    state,
    {
      type: 'command',
      id: `credit:${transactionId}`,
      command: { op: 'recharge', amount: entry.amount, transactionId },
    },
    state.lastTs,
  ).state;
}

export async function restoreMeter(
  store: Store,
  device: DeviceRecord,
  snap: MeterSnapshot,
): Promise<{ state: MeterState; body: SnapshotBody; ledgerSeq: number; chargedBaseline: boolean }> {
  const body = JSON.parse(snap.state) as SnapshotBody;
  const read = readMeterSnapshot(body.meter);
  let state = read.state;
  let ledgerSeq = snap.ledgerSeq;
  for (const entry of await store.ledgerSince(device.pk, snap.ledgerSeq)) {
    state = creditEntry(state, entry);
    ledgerSeq = entry.seq;
  }
  if (!read.chargedKnown) {
    // [M-15] A snapshot from before the charged register: take the ledger as right, once, from here on.
    const total = (await store.ledgerTotals(device.pk))[0]?.total ?? 0;
    state = { ...state, charged: BigInt(total) * UNITS_PER_PAISE - state.balance };
  }
  return { state, body, ledgerSeq, chargedBaseline: !read.chargedKnown };
}
