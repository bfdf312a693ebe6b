// A scripted prepaid meter on the test's end of a serial line (test/bridge/wire.ts): it says HELLO and
// STATE, and answers a `CMD recharge` as firmware would [SP-4.6] [MC-8.8] (once per transaction id, then
// `applied=0`) or in whatever hostile way a test asks for.

import type { Frame } from '../../firmware-protocol/serial/frames.ts';
import type { Wire } from './wire.ts';

export type RechargeCmd = Extract<Frame, { type: 'CMD' }> & { op: 'recharge' };

export class PrepaidScript {
  balance: number;
  readonly seen = new Set<string>();
  #ts = Date.now();

  constructor(
    readonly wire: Wire,
    readonly deviceId: string,
    balance: number,
  ) {
    this.balance = balance;
  }

  /** [SP-5.1] What a meter says when its port opens: the link comes up and the bridge announces it. */
  hello(): void {
    this.wire.send({
      type: 'HELLO',
      proto: 1,
      device_id: this.deviceId,
      model: 'basic',
      firmware: 'script-1',
      has_relay: true,
      telemetry_period_s: 60,
      keepalive_s: 30,
      properties: [
        { property_id: 'energy', context_type: 'cumulative', unit: 'kWh' },
        { property_id: 'active_power', context_type: 'instantaneous', unit: 'W' },
        { property_id: 'voltage', context_type: 'instantaneous', unit: 'V' },
      ],
    });
    this.state();
  }

  /** [SP-4.3] A STATE with the present balance (sent after a credit too: the balance jumped, MC-5.1). */
  state(): void {
    this.#ts = Math.max(this.#ts + 1, Date.now());
    this.wire.send({
      type: 'STATE',
      ts: this.#ts,
      mode: 'prepaid',
      relay_commanded: true,
      relay_state: true,
      eb_tariff: 800,
      dg_tariff: 2000,
      active_tariff: 1,
      balance: this.balance,
      pg_enabled: false,
      wifi_type: 'Primary',
    });
  }

  /** The next `CMD recharge` the bridge writes after line `from`. */
  async nextRecharge(from: number, timeoutMs = 5_000): Promise<RechargeCmd> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const cmd = this.wire
        .frames()
        .slice(from)
        .find((f): f is RechargeCmd => f.type === 'CMD' && f.op === 'recharge');
      if (cmd) return cmd;
      if (Date.now() > deadline) throw new Error('timed out waiting for a CMD recharge');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Answers as firmware does [MC-8.8]: credits a transaction id once; `credit` overrides the amount. */
  ack(cmd: RechargeCmd, credit = cmd.amount): void {
    const applied = !this.seen.has(cmd.transaction_id);
    if (applied) {
      this.seen.add(cmd.transaction_id);
      this.balance += credit;
    }
    this.wire.send({
      type: 'ACK',
      seq: cmd.seq,
      id: cmd.id,
      op: 'recharge',
      data: { applied, balance: this.balance },
    });
    if (applied) this.state();
  }

  nak(cmd: RechargeCmd, code: 'invalid_argument' | 'busy', msg: string): void {
    this.wire.send({ type: 'NAK', seq: cmd.seq, id: cmd.id, code, msg });
  }

  /** [SP-4.12] The meter goes away on purpose: the link is down at once (MC-6.4). */
  bye(): void {
    this.wire.send({ type: 'BYE' });
  }

  recharges(): RechargeCmd[] {
    return this.wire.frames().filter((f): f is RechargeCmd => f.type === 'CMD' && f.op === 'recharge');
  }
}
