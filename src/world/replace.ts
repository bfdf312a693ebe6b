// Issue 12 §3: a new physical meter behind the same device id. The device (id, name, udfs, space,
// account) is untouched; the virtual meter is swapped for a new one, with a new serial [MC-4.5] and its
// register from zero in a new epoch [MC-7.9], keeping mode, tariffs and load, and no faults [M-27]. The
// service joins the two registers into one energy series, so consumption across the swap is right.
//
// Money (spec-decisions 108): the balance is the customer's, not the hardware's, so by default it moves
// to the new meter, and with it the meter's `charged` register [M-15]: no ledger entry, and the ledger
// check [LEDGER-3] agrees before and after. `keep_balance: false` refunds it instead: an `adjustment`
// entry of minus the whole paise in the ledger first, then the same debit on the meter, so the check
// still agrees (a fraction of a paise stays on the meter).

import { randomBytes } from 'node:crypto';
import type { VirtualClock } from '../../simulator/clock.ts';
import { reportedBalance } from '../../simulator/meter/index.ts';
import type { MeterState } from '../../simulator/meter/types.ts';
import type { VirtualMeter } from '../../simulator/virtual-meter.ts';
import type { TwinRegistry } from '../devices/twins.ts';
import type { Store } from '../store/types.ts';
import { virtualOf, type WorldCore } from './core.ts';
import { seen, settle, startMeter } from './meters.ts';
import { type MeterMeta, WorldError } from './types.ts';

export interface ReplaceInput {
  /** The new meter's serial (MC-4.5); default: a fresh one. */
  serial?: string;
  /** Default true: the balance moves to the new meter. False: it is refunded through the ledger. */
  keepBalance?: boolean;
}

export interface ReplaceResult {
  device_id: string;
  old_serial: string;
  new_serial: string;
  register_epoch: number;
  /** Integer paise on the new meter. */
  balance: number;
  /** The ledger entry of a refund (keep_balance: false), or null. */
  refund: { amount: number; ledger_seq: number } | null;
}

export interface ReplaceDeps {
  store: Pick<Store, 'appendLedger'>;
  clock: Pick<VirtualClock, 'now'>;
  twins: Pick<TwinRegistry, 'waitForAvailability' | 'get'>;
  meter: VirtualMeter;
  meta: MeterMeta;
  /** Makes the new meter's state durable (right after the ledger entry, if any). */
  saveSnapshots(): Promise<void>;
  /** Marks the next offline of the device as the meter being unplugged for the swap. */
  expectOffline(deviceId: string): void;
}

/** A serial the world makes up: `SN-` and 10 hex digits. */
export function freshSerial(): string {
  return `SN-${randomBytes(5).toString('hex').toUpperCase()}`;
}

export async function replaceVirtualMeter(deps: ReplaceDeps, input: ReplaceInput): Promise<ReplaceResult> {
  const { meter, meta } = deps;
  const oldSerial = meter.state.serial;
  const serial = input.serial ?? freshSerial();
  if (serial === oldSerial)
    throw new WorldError('invalid', `serial ${serial} is the present meter's: a new meter has a new serial`);
  meter.tick(); // the old register up to this instant
  let refund: ReplaceResult['refund'] = null;
  const debit = input.keepBalance === false ? reportedBalance(meter.state.balance) : 0;
  if (debit !== 0) {
    // [LEDGER-1] The ledger first: a crash after it leaves a disagreement LEDGER-3 reports, never money
    // from nowhere.
    const { entry } = await deps.store.appendLedger({
      devicePk: meta.pk,
      kind: 'adjustment',
      amount: -debit,
      transactionId: null,
      createdAt: deps.clock.now(),
    });
    meta.ledgerSeq = Math.max(meta.ledgerSeq, entry.seq);
    refund = { amount: -debit, ledger_seq: entry.seq };
  }
  const wasConnected = meter.connected;
  if (wasConnected) deps.expectOffline(meter.id);
  await meter.replace(serial, debit);
  await deps.saveSnapshots();
  if (wasConnected) {
    // Online again with its new info: the next request sees the new meter.
    await deps.twins.waitForAvailability(meter.id, true);
    const deadline = Date.now() + 5_000;
    while (deps.twins.get(meter.id)?.info?.serial !== serial && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 2));
  }
  return {
    device_id: meter.id,
    old_serial: oldSerial,
    new_serial: serial,
    register_epoch: meter.state.registerEpoch,
    balance: reportedBalance(meter.state.balance),
    refund,
  };
}

/** Issue 12 §3: a new physical meter behind the virtual device `deviceId`, over the world's core. */
export async function replaceMeter(
  core: WorldCore,
  deviceId: string,
  input: ReplaceInput,
): Promise<ReplaceResult> {
  const v = virtualOf(core, deviceId);
  if (!v) throw new WorldError('not_found', `virtual meter ${deviceId} not found`);
  return replaceVirtualMeter(
    {
      store: core.store,
      clock: core.clock,
      twins: core.twins,
      ...v,
      saveSnapshots: () => core.saver.saveAll(),
      expectOffline: (id) => core.twins.expectOffline(id, 'unplugged'),
    },
    input,
  );
}

/**
 * Replaces one virtual meter's whole state (a device reset, world-snapshots.ts): the old one retired (as
 * in a reload), then `make` (given its state and pk, and run while no meter of that id exists) returns
 * the new state and the ledger seq it includes; the new one starts with the same login, online as the
 * old was. Call in `exclusive`.
 */
export async function swapMeter(
  core: WorldCore,
  deviceId: string,
  make: (old: MeterState, pk: number) => Promise<{ state: MeterState; ledgerSeq: number }>,
): Promise<VirtualMeter> {
  const v = virtualOf(core, deviceId);
  if (!v) throw new WorldError('not_found', `virtual meter ${deviceId} not found`);
  const { meter: old, meta } = v;
  old.tick(core.clock.now());
  await settle(core);
  core.fleet.remove(deviceId);
  core.index.meta.delete(deviceId);
  await old.retire();
  await core.twins.settled();
  await core.writer.flush();
  core.twins.forget(deviceId);
  const { state, ledgerSeq } = await make(old.state, meta.pk);
  const meter = await startMeter(core, state, meta.secret, ledgerSeq, meta.pk, old.online);
  await core.saver.saveAll();
  await seen(core, meter);
  return meter;
}
