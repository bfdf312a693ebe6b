// Money in the virtual meters, ledger first: a recharge is written to the ledger before it reaches
// the meter [LEDGER-1], and every meter can be checked against its ledger [LEDGER-3], as the world
// does once when it opens (issue 8 item 2).

import type { VirtualClock } from '../../simulator/clock.ts';
import { reportedBalance } from '../../simulator/meter/index.ts';
import type { Fleet } from '../../simulator/meter-fleet.ts';
import type { Store } from '../store/types.ts';
import { type LedgerCheck, ledgerCheck, reportChecks } from './ledger-check.ts';
import { type Log, type MeterMeta, WorldError } from './types.ts';

export interface MeterLedgerOptions {
  store: Pick<Store, 'appendLedger' | 'ledgerTotals'>;
  clock: VirtualClock;
  fleet: Pick<Fleet, 'get'>;
  /** The virtual meters' meta, by device id; a recharge raises its `ledgerSeq`. */
  meta: ReadonlyMap<string, MeterMeta>;
  /**
   * Persists the credited meter (and the clock) once a credit is applied: its snapshot then holds the
   * credit and its ledger seq. The other meters keep to the periodic save; a recharge in a fleet of
   * 10,000 writes one row, not 10,000 (decision 248).
   */
  saveSnapshot(deviceId: string): Promise<void>;
  /**
   * The state the service last accepted from a meter (its twin's), or null: a recharge returns once the
   * service has taken the state the credit made the meter publish, so the v2 API shows the new balance
   * to the next request (read your writes).
   */
  reportedState(deviceId: string): object | null;
  log: Log;
}

export class MeterLedger {
  /** What the ledger check found when the world opened [issue 8 item 2]. */
  readonly reconciliation = { checkedAtStart: 0, disagreementsAtStart: 0 };
  readonly #opts: MeterLedgerOptions;
  /** Recharges append and credit one at a time, so a snapshot's ledger seq never skips an entry. */
  #crediting: Promise<unknown> = Promise.resolve();

  constructor(opts: MeterLedgerOptions) {
    this.#opts = opts;
  }

  /**
   * Credits a virtual meter, exactly once per transaction id, durable before it returns. The ledger
   * decides [LEDGER-1]: the entry is written first, and a transaction id already in the ledger never
   * reaches the meter (same amount: the success of an applied recharge, applied: false; another amount:
   * a conflict), whatever the meter still remembers.
   */
  async recharge(
    deviceId: string,
    amount: number,
    transactionId: string,
  ): Promise<{ balance: number; applied: boolean; ledgerSeq: number }> {
    const { store, clock, fleet } = this.#opts;
    const meter = fleet.get(deviceId);
    const meta = this.#opts.meta.get(deviceId);
    if (!meter || !meta) throw new WorldError('not_found', `virtual meter ${deviceId} not found`);
    const credit = this.#crediting.then(async () => {
      let result: Awaited<ReturnType<Store['appendLedger']>>;
      try {
        result = await store.appendLedger({
          devicePk: meta.pk,
          kind: 'recharge',
          amount,
          transactionId,
          createdAt: clock.now(),
        });
      } catch (err) {
        throw new WorldError('conflict', (err as Error).message);
      }
      if (result.duplicate) {
        if (result.entry.amount !== amount) {
          throw new WorldError(
            'conflict',
            `transaction ${transactionId} was already used for ${result.entry.amount} paise`,
          );
        }
        meter.tick();
        return { applied: false as const, seq: result.entry.seq };
      }
      const shownBefore = this.#opts.reportedState(deviceId);
      const reply = meter.command(`recharge:${transactionId}`, {
        op: 'recharge',
        amount: result.entry.amount,
        transactionId,
      });
      meta.ledgerSeq = Math.max(meta.ledgerSeq, result.entry.seq);
      const data = reply.ok ? (reply.data as { applied?: boolean } | undefined) : undefined;
      if (data?.applied !== true) {
        // Cannot happen for an entry new to the ledger; if it does, LEDGER-3 reports the disagreement.
        this.#opts.log(
          'error',
          `recharge ${transactionId} of ${deviceId} is in the ledger but the meter answered ${JSON.stringify(reply)} [LEDGER-1]`,
        );
      }
      return { applied: true as const, seq: result.entry.seq, shownBefore };
    });
    this.#crediting = credit.catch(() => undefined);
    const outcome = await credit;
    if (outcome.applied) {
      await Promise.all([this.#opts.saveSnapshot(deviceId), this.#shown(deviceId, outcome.shownBefore)]);
    }
    return {
      balance: reportedBalance(meter.state.balance),
      applied: outcome.applied,
      ledgerSeq: outcome.seq,
    };
  }

  /** Waits (2 s at most) until the service has taken a state newer than `before` from a connected meter. */
  async #shown(deviceId: string, before: object | null): Promise<void> {
    const deadline = Date.now() + 2_000;
    while (
      this.#opts.fleet.get(deviceId)?.connected &&
      this.#opts.reportedState(deviceId) === before &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /**
   * [LEDGER-3] Every virtual meter (or one) against its ledger: balance = ledger total − charged [M-15].
   * Meters are integrated to the present first, so the figures are of this instant.
   */
  async check(deviceId?: string): Promise<LedgerCheck[]> {
    const pk = deviceId === undefined ? undefined : this.#opts.meta.get(deviceId)?.pk;
    if (deviceId !== undefined && pk === undefined)
      throw new WorldError('not_found', `virtual meter ${deviceId} not found`);
    const totals = new Map((await this.#opts.store.ledgerTotals(pk)).map((t) => [t.devicePk, t.total]));
    const checks: LedgerCheck[] = [];
    for (const [id, meta] of this.#opts.meta) {
      if (pk !== undefined && meta.pk !== pk) continue;
      const meter = this.#opts.fleet.get(id);
      if (!meter) continue;
      meter.tick();
      checks.push(ledgerCheck(meter.state, totals.get(meta.pk) ?? 0));
    }
    // A whole check's disagreements are what the metrics show (PM-4); one meter's check says nothing of the rest.
    if (deviceId === undefined) this.lastDisagreements = checks.filter((c) => !c.agrees).length;
    return checks;
  }

  /** Meters whose balance disagreed with their ledger at the last whole check (at start, or GET /sim/v1/ledger). */
  lastDisagreements = 0;

  /** The check the world runs when it opens: counted in `reconciliation`, disagreements logged. */
  async checkAtStart(): Promise<void> {
    const checks = await this.check();
    this.reconciliation.checkedAtStart = checks.length;
    this.reconciliation.disagreementsAtStart = reportChecks(checks, this.#opts.log);
  }
}
