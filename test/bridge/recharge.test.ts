// Money for a bridged prepaid meter (issue 18 item 1): `POST /sim/v1/devices/{id}/recharge` on an
// external device goes ledger first [LEDGER-1], then through the twins, the broker, the real serial bridge
// and a socat pty to a scripted meter; the ledger holds it pending until the meter acknowledges it
// [LEDGER-4], sends it again by the same transaction id when the meter is back [LEDGER-5], and checks
// each credit against the balances the meter reported [LEDGER-6]. On today's main every call here is a
// 409 (`device … is external`).

import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bridge } from '../../src/bridge/bridge.ts';
import {
  newAccount,
  type Provisioned,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import { PtyPair, skipWithoutSocat, until } from './helpers.ts';
import { PrepaidScript } from './prepaid-script.ts';
import { Wire } from './wire.ts';

const log = () => undefined;

interface Recharged {
  balance: number | null;
  applied: boolean;
  status: 'applied' | 'pending';
}
interface ExternalCheck {
  agrees: boolean;
  applied_paise: number;
  pending: string[];
  refused: string[];
  disagreements: { transaction_id: string; difference_paise: number }[];
}

/** A bridged scripted meter: pty pair, the real Bridge on one end, the script on the other. */
class BridgedMeter {
  pty!: PtyPair;
  bridge!: Bridge;
  wire!: Wire;
  meter!: PrepaidScript;

  async start(dir: string, ext: Provisioned, mqttUrl: string, balance: number): Promise<this> {
    this.pty = await new PtyPair(dir).start();
    this.wire = new Wire(this.pty.a);
    this.bridge = new Bridge({
      serial: this.pty.b,
      baud: 115_200,
      broker: { ...ext.mqtt, url: mqttUrl },
      log,
    });
    this.bridge.start();
    await this.wire.next('IDENT', 0);
    this.meter = new PrepaidScript(this.wire, ext.device_id, balance);
    this.meter.hello();
    return this;
  }

  async stop(): Promise<void> {
    await this.bridge?.close();
    await this.wire?.close();
    await this.pty?.kill();
  }
}

const online = (t: TestService, id: string, want = true) =>
  until(() => t.svc.world.twins.get(id)?.online === want, 10_000, `${id} online=${want}`);

async function ledgerOf(t: TestService, id: string): Promise<ExternalCheck> {
  const res = await t.sim<{ ledger: ExternalCheck | null }>('GET', `/devices/${id}`);
  expect(res.status).toBe(200);
  return res.body.data.ledger!;
}

describe.skipIf(skipWithoutSocat)('[LEDGER-4] recharging a serial-bridged prepaid meter', () => {
  let t: TestService;
  let tmp: { dir: string; remove: () => void };
  let ext: Provisioned;
  let other: Provisioned;
  let m: BridgedMeter;
  const recharge = (amount: number, transaction_id: string, id = ext.device_id) =>
    t.sim<Recharged>('POST', `/devices/${id}/recharge`, { amount, transaction_id });

  beforeAll(async () => {
    t = await startTestService({ creditRetryMs: 300 });
    tmp = tempDir('meterstack-recharge-');
    const { account_id } = await newAccount(t.sim);
    ext = await provision(t.sim, { account_id, external: true, device_id: 'MTR-PAY-1' });
    other = await provision(t.sim, { account_id, external: true, device_id: 'MTR-PAY-2' });
    m = await new BridgedMeter().start(tmp.dir, ext, t.svc.mqttUrl, 1000);
    await online(t, ext.device_id);
    await until(() => t.svc.world.twins.get(ext.device_id)?.state?.balance === 1000, 5_000, 'its state');
  });

  afterAll(async () => {
    await m?.stop();
    await t?.close();
    tmp?.remove();
  });

  it('[LEDGER-4] a credit reaches the meter over the serial line and is applied on its ack, once', async () => {
    const from = m.wire.lines.length;
    const answer = recharge(500, 'pay-1');
    const cmd = await m.meter.nextRecharge(from);
    expect(cmd).toMatchObject({ amount: 500, transaction_id: 'pay-1' });
    m.meter.ack(cmd);
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ balance: 1500, applied: true, status: 'applied' });
    // Read your writes: the state the meter published with the credit is the twin's already.
    expect(t.svc.world.twins.get(ext.device_id)?.state?.balance).toBe(1500);
    expect(await ledgerOf(t, ext.device_id)).toMatchObject({ agrees: true, applied_paise: 500, pending: [] });
  });

  it('[LEDGER-1] the same transaction id again credits nothing, neither in the ledger nor on the meter', async () => {
    const sent = m.meter.recharges().length;
    const res = await recharge(500, 'pay-1');
    expect(res.body.data).toEqual({ balance: 1500, applied: false, status: 'applied' });
    expect(res.body.message).toBe('recharge already applied');
    const other = await recharge(900, 'pay-1');
    expect(other.status).toBe(409);
    expect(m.meter.recharges().length).toBe(sent);
    expect((await ledgerOf(t, ext.device_id)).applied_paise).toBe(500);
  });

  it('[LEDGER-1] two submits of a new transaction id at once: one credit on the wire, one in the ledger', async () => {
    const from = m.wire.lines.length;
    const both = Promise.all([recharge(700, 'pay-2'), recharge(700, 'pay-2')]);
    m.meter.ack(await m.meter.nextRecharge(from));
    const [a, b] = await both;
    expect([a.body.data.applied, b.body.data.applied].sort()).toEqual([false, true]);
    expect(a.body.data.status).toBe('applied');
    expect(b.body.data.status).toBe('applied');
    await new Promise((r) => setTimeout(r, 400)); // a sweep has run: nothing pending is sent again
    expect(m.meter.recharges().filter((c) => c.transaction_id === 'pay-2')).toHaveLength(1);
    expect(m.meter.balance).toBe(2200);
    expect(await ledgerOf(t, ext.device_id)).toMatchObject({ agrees: true, applied_paise: 1200 });
  });

  it("[LEDGER-4] the meter's error reply: 400 device_rejected, nothing credited, and a repeat is refused again", async () => {
    const from = m.wire.lines.length;
    const answer = recharge(90_000, 'pay-big');
    m.meter.nak(await m.meter.nextRecharge(from), 'invalid_argument', 'amount above the limit');
    const res = await answer;
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'device_rejected',
      detail: 'Device MTR-PAY-1 refused the recharge: invalid_argument: amount above the limit',
    });
    const sent = m.meter.recharges().length;
    expect((await recharge(90_000, 'pay-big')).status).toBe(400);
    expect(m.meter.recharges().length).toBe(sent);
    expect(await ledgerOf(t, ext.device_id)).toMatchObject({ applied_paise: 1200, refused: ['pay-big'] });
    expect(m.meter.balance).toBe(2200);
  });

  it('[LEDGER-5] offline: pending in the ledger, delivered by its transaction id when the meter is back', async () => {
    m.meter.bye();
    await online(t, ext.device_id, false);
    const res = await recharge(300, 'pay-off');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ applied: true, status: 'pending', balance: 2200 });
    expect(res.body.message).toContain('pending');
    expect((await ledgerOf(t, ext.device_id)).pending).toEqual(['pay-off']);

    const from = m.wire.lines.length;
    m.meter.hello();
    const cmd = await m.meter.nextRecharge(from);
    expect(cmd).toMatchObject({ amount: 300, transaction_id: 'pay-off' });
    m.meter.ack(cmd);
    await until(async () => (await ledgerOf(t, ext.device_id)).pending.length === 0, 5_000, 'no pending');
    expect(await ledgerOf(t, ext.device_id)).toMatchObject({ agrees: true, applied_paise: 1500 });
    expect(m.meter.balance).toBe(2500);
    // One event stream for every meter's money: pending when the ledger took it, applied when the meter did.
    const journal = await t.sim<{ events: { data: { transaction_id: string; outcome: string } }[] }>(
      'GET',
      `/events?type=money.recharge&device_id=${ext.device_id}&since=0`,
    );
    const outcomes = journal.body.data.events.filter((e) => e.data.transaction_id === 'pay-off');
    expect(outcomes.map((e) => e.data.outcome)).toEqual(['pending', 'applied']);
  });

  it('[LEDGER-5] no ack in time: pending, sent again by the same transaction id; the late ack of the first send credits nothing more', async () => {
    const from = m.wire.lines.length;
    const res = await recharge(100, 'pay-slow'); // the first CMD goes unanswered: 2 s command timeout
    expect(res.body.data).toMatchObject({ applied: true, status: 'pending' });
    const first = await m.meter.nextRecharge(from);
    const sends = () => m.meter.recharges().filter((c) => c.transaction_id === 'pay-slow');
    await until(() => sends().length >= 2, 5_000, 'the credit sent again');
    const again = sends()[1]!;
    expect(again.transaction_id).toBe('pay-slow');
    expect(again.id).not.toBe(first.id);
    m.meter.ack(again);
    m.meter.ack(first); // [MC-8.8] a meter answers a known transaction applied=0; [MC-8.9] nothing waits for it
    await until(async () => (await ledgerOf(t, ext.device_id)).pending.length === 0, 5_000, 'no pending');
    expect(await ledgerOf(t, ext.device_id)).toMatchObject({ agrees: true, applied_paise: 1600 });
    expect(m.meter.balance).toBe(2600);
  });

  it('hostile replies never credit the ledger: an ack of a command never sent, a repeated ack, a reply from another device', async () => {
    const before = await ledgerOf(t, ext.device_id);
    // An ACK of a command id the bridge never sent is dropped on the line [SP-5.10].
    m.wire.send({
      type: 'ACK',
      seq: 999,
      id: 'never-sent',
      op: 'recharge',
      data: { applied: true, balance: 99_999 },
    });
    // Another meter's login answers MTR-PAY-1's credit on its own reply topic: forged [MC-8.9].
    const intruder = await mqtt.connectAsync(t.svc.mqttUrl, {
      username: other.mqtt.username,
      password: other.mqtt.password,
      clientId: other.device_id,
      reconnectPeriod: 0,
    });
    const from = m.wire.lines.length;
    const answer = recharge(200, 'pay-forged');
    const cmd = await m.meter.nextRecharge(from);
    const forgedBefore = t.svc.world.twins.refused.forgedReply;
    await intruder.publishAsync(
      `meterstack/v1/${other.device_id}/reply`,
      JSON.stringify({ v: 1, id: cmd.id, ok: true, data: { applied: true, balance: 50_000 } }),
      { qos: 1 },
    );
    await until(
      () => t.svc.world.twins.refused.forgedReply > forgedBefore,
      3_000,
      'the forged reply counted',
    );
    // An ACK of the recharge's seq and id naming another op is not its answer [SP-5.10].
    const errs = m.wire.frames().filter((f) => f.type === 'ERR').length;
    m.wire.send({ type: 'ACK', seq: cmd.seq, id: cmd.id, op: 'set_relay' });
    await until(() => m.wire.frames().filter((f) => f.type === 'ERR').length > errs, 3_000, 'ERR rejected');
    m.meter.ack(cmd);
    m.meter.ack(cmd); // the same ack twice: the second is unmatched [MC-8.9]
    const res = await answer;
    await intruder.endAsync();
    expect(res.body.data).toEqual({ balance: 2800, applied: true, status: 'applied' });
    const after = await ledgerOf(t, ext.device_id);
    expect(after.applied_paise).toBe(before.applied_paise + 200);
    expect(after.agrees).toBe(true);
    expect(m.meter.balance).toBe(2800);
  });

  it('[LEDGER-6] a meter whose balance moves by another amount than the credit shows a disagreement', async () => {
    const from = m.wire.lines.length;
    const answer = recharge(400, 'pay-odd');
    m.meter.ack(await m.meter.nextRecharge(from), 700); // it credits 700 for a 400 credit
    expect((await answer).body.data).toMatchObject({ status: 'applied', balance: 3500 });
    const check = await ledgerOf(t, ext.device_id);
    expect(check.agrees).toBe(false);
    expect(check.disagreements).toEqual([
      expect.objectContaining({ transaction_id: 'pay-odd', difference_paise: 300 }),
    ]);
    const all = await t.sim<{ external: { disagreements: { device_id: string }[] } }>('GET', '/ledger');
    expect(all.body.data.external.disagreements.map((d) => d.device_id)).toEqual([ext.device_id]);
  });
});

describe.skipIf(skipWithoutSocat)('[LEDGER-5] a pending credit survives a service restart', () => {
  it('is in the ledger before the restart and reaches the meter after it, once', async () => {
    const tmp = tempDir('meterstack-recharge-restart-');
    const db = `${tmp.dir}/money.db`;
    let t = await startTestService({ db, creditRetryMs: 300 });
    let m: BridgedMeter | undefined;
    try {
      const { account_id } = await newAccount(t.sim);
      const ext = await provision(t.sim, { account_id, external: true, device_id: 'MTR-PAY-R' });
      const res = await t.sim<Recharged>('POST', `/devices/${ext.device_id}/recharge`, {
        amount: 250,
        transaction_id: 'pay-restart',
      });
      expect(res.body.data).toEqual({ balance: null, applied: true, status: 'pending' });
      await t.close();

      t = await startTestService({ db, creditRetryMs: 300 });
      expect((await ledgerOf(t, ext.device_id)).pending).toEqual(['pay-restart']);
      m = await new BridgedMeter().start(tmp.dir, ext, t.svc.mqttUrl, 1000);
      const cmd = await m.meter.nextRecharge(0, 10_000);
      expect(cmd).toMatchObject({ amount: 250, transaction_id: 'pay-restart' });
      m.meter.ack(cmd);
      await until(async () => (await ledgerOf(t, ext.device_id)).pending.length === 0, 5_000, 'delivered');
      expect(await ledgerOf(t, ext.device_id)).toMatchObject({ agrees: true, applied_paise: 250 });
      expect(m.meter.recharges()).toHaveLength(1);
      expect(m.meter.balance).toBe(1250);
    } finally {
      await m?.stop();
      await t.close();
      tmp.remove();
    }
  });
});
