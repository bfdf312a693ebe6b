// Issue 18 item 1, the MQTT side of an external meter's credit (real firmware, no bridge): a hand-driven
// meter on the real broker answers each `recharge` as a test decides. [LEDGER-4] an ack without MC-8.6's
// `{applied, balance}` says nothing sure about the money: pending, never a 500 and never a receipt;
// [MC-8.12] `busy` keeps a credit pending, any other error is final; [MC-8.10] every resend carries the
// same transaction id, and a meter that already holds it answers `applied: false`.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  newAccount,
  type Provisioned,
  provision,
  startTestService,
  type TestService,
} from '../helpers/service.ts';
import { ExternalMeter } from './external-meter.ts';

interface Check {
  agrees: boolean;
  applied_paise: number;
  pending: string[];
  refused: string[];
  unverified: number;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('[LEDGER-4] an MQTT meter answering recharges badly', () => {
  let t: TestService;
  let ext: Provisioned;
  let meter: ExternalMeter;

  const ledger = async () =>
    (await t.sim<{ ledger: Check }>('GET', `/devices/${ext.device_id}`)).body.data.ledger;
  /** The `n`-th command the meter received (1-based), once it has. */
  const command = async (n: number) => {
    await until(() => meter.commands.length >= n, 5_000, `command ${n}`);
    return meter.commands[n - 1]!;
  };

  beforeAll(async () => {
    t = await startTestService({ creditRetryMs: 300 });
    const { account_id } = await newAccount(t.sim);
    ext = await provision(t.sim, { account_id, external: true, device_id: 'MTR-MQ-1' });
    // It never answers by itself: the test answers every command.
    meter = await ExternalMeter.start({
      url: t.svc.mqttUrl,
      deviceId: ext.device_id,
      password: ext.mqtt.password,
      balance: 1000,
      replyDelayMs: 1e9,
    });
    await until(() => t.svc.world.twins.get(ext.device_id)?.online === true, 5_000, 'online');
  });

  afterAll(async () => {
    await meter?.stop();
    await t?.close();
  });

  it('[MC-8.6] an ack without data is pending, not applied; the resend by the same transaction id is taken', async () => {
    const answer = t.sim('POST', `/devices/${ext.device_id}/recharge`, {
      amount: 400,
      transaction_id: 'mq-1',
    });
    const first = await command(1);
    await meter.publishReply({ v: 1, id: first.id, ok: true });
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ applied: true, status: 'pending' });
    expect(res.body.message).toContain('MC-8.6');
    expect(await ledger()).toMatchObject({ pending: ['mq-1'], applied_paise: 0 });
    expect(t.logs.some((l) => l.startsWith('warn') && l.includes('breaks MC-8.6'))).toBe(true);

    const again = await command(2);
    expect(again.command).toEqual({ op: 'recharge', amount: 400, transactionId: 'mq-1' });
    expect(again.id).not.toBe(first.id);
    // [MC-8.8] The meter had applied it: applied false, its balance.
    await meter.publishReply({ v: 1, id: again.id, ok: true, data: { applied: false, balance: 1400 } });
    await until(async () => (await ledger()).pending.length === 0, 5_000, 'the credit taken');
    expect(await ledger()).toMatchObject({ agrees: true, applied_paise: 400, unverified: 1 });
  });

  it('[MC-8.12] busy keeps it pending and it comes again; unsupported is final: 400 device_rejected', async () => {
    const n = meter.commands.length;
    const answer = t.sim('POST', `/devices/${ext.device_id}/recharge`, {
      amount: 50,
      transaction_id: 'mq-2',
    });
    const busy = await command(n + 1);
    await meter.publishReply({
      v: 1,
      id: busy.id,
      ok: false,
      error: { code: 'busy', message: 'in WiFi setup' },
    });
    expect((await answer).body.data).toMatchObject({ status: 'pending' });
    const again = await command(n + 2);
    expect(again.command).toMatchObject({ transactionId: 'mq-2' });
    await meter.publishReply({ v: 1, id: again.id, ok: true, data: { applied: true, balance: 1450 } });
    await until(async () => (await ledger()).pending.length === 0, 5_000, 'mq-2 taken');

    const refused = t.sim('POST', `/devices/${ext.device_id}/recharge`, {
      amount: 60,
      transaction_id: 'mq-3',
    });
    const cmd = await command(n + 3);
    await meter.publishReply({
      v: 1,
      id: cmd.id,
      ok: false,
      error: { code: 'unsupported', message: 'no balance' },
    });
    const res = await refused;
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('device_rejected');
    await new Promise((r) => setTimeout(r, 500)); // sweeps ran: a refused credit is never sent again
    expect(
      meter.commands.filter((c) => (c.command as { transactionId?: string }).transactionId === 'mq-3'),
    ).toHaveLength(1);
    expect(await ledger()).toMatchObject({
      agrees: true,
      applied_paise: 450,
      refused: ['mq-3'],
      pending: [],
    });
  });

  it('[LEDGER-5] a world restore to a snapshot taken while a credit was pending sends it again; the meter holds it once', async () => {
    // The meter is gone (its will fires): the credit stays pending, and the world is saved so.
    await meter.stop();
    await until(() => t.svc.world.twins.get(ext.device_id)?.online === false, 5_000, 'offline');
    const res = await t.sim('POST', `/devices/${ext.device_id}/recharge`, {
      amount: 30,
      transaction_id: 'mq-4',
    });
    expect(res.body.data).toMatchObject({ status: 'pending' });
    expect((await t.sim('POST', '/snapshots', { name: 'with-pending' })).status).toBe(201);

    meter = await ExternalMeter.start({
      url: t.svc.mqttUrl,
      deviceId: ext.device_id,
      password: ext.mqtt.password,
      balance: 1450,
      replyDelayMs: 1e9,
    });
    const sent = await until(() => meter.commands.length > 0, 5_000, 'the pending credit').then(
      () => meter.commands[0]!,
    );
    expect(sent.command).toMatchObject({ transactionId: 'mq-4' });
    await meter.publishReply({ v: 1, id: sent.id, ok: true, data: { applied: true, balance: 1480 } });
    await until(async () => (await ledger()).pending.length === 0, 5_000, 'mq-4 taken');

    // Back to the snapshot: its ledger has mq-4 pending again, so it goes out again [MC-8.10].
    expect((await t.sim('POST', '/snapshots/with-pending/restore')).status).toBe(200);
    expect((await ledger()).pending).toEqual(['mq-4']);
    // A restore starts every twin offline; the meter announces itself again (a reconnection).
    await meter.stop();
    meter = await ExternalMeter.start({
      url: t.svc.mqttUrl,
      deviceId: ext.device_id,
      password: ext.mqtt.password,
      balance: 1480,
      replyDelayMs: 1e9,
    });
    await until(() => meter.commands.length > 0, 10_000, 'the credit sent again after the restore');
    const again = meter.commands[0]!;
    expect(again.command).toMatchObject({ transactionId: 'mq-4' });
    await meter.publishReply({ v: 1, id: again.id, ok: true, data: { applied: false, balance: 1480 } });
    await until(async () => (await ledger()).pending.length === 0, 5_000, 'mq-4 taken again');
    expect(await ledger()).toMatchObject({ agrees: true, pending: [] });
  });
});
