// [CL-9.6] A recharge whose answer is lost, against the real virtual DLMS meter (simulator/dlms-meter.ts on
// its TCP wrapper, drawing power and so lowering its credit as it runs), the bridge in this process and a
// real meterstack whose ledger sends a pending credit again (MC-8.10). A proxy between bridge and meter
// cuts the link at the worst moments: right after the meter credited (its answer never arrives, and the
// bridge is restarted before it learns more), and right as the ACTION leaves the bridge (the meter never
// gets it). Either way the meter's credit decides, the ledger settles, and the meter is credited once.

import { readFileSync } from 'node:fs';
import { createServer, type Server, Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WpduSplitter } from '../../../firmware-protocol/dlms/wrapper/splitter.ts';
import { DlmsMeter } from '../../../simulator/dlms-meter.ts';
import { WrapperMeterServer } from '../../../simulator/dlms-tcp.ts';
import { createMeter } from '../../../simulator/meter/index.ts';
import { runDlmsBridge } from '../../../src/bridge/dlms/index.ts';
import {
  newAccount,
  ok,
  type Provisioned,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../../helpers/service.ts';
import { until } from '../helpers.ts';

const PASSWORD = 'ABCDEFGH';
const ACTION_REQUEST = 0xc3;
const ACTION_RESPONSE = 0xc7;

/** A TCP proxy that can cut both sockets when an APDU with a given tag passes, and refuse connections. */
class CuttingProxy {
  cutOn: { tag: number; from: 'bridge' | 'meter' } | null = null;
  refuse = false;
  cuts = 0;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  constructor(meterPort: number) {
    this.#server = createServer((bridge) => {
      if (this.refuse) return bridge.destroy();
      const meter = new Socket();
      meter.connect(meterPort, '127.0.0.1');
      for (const s of [bridge, meter]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => undefined);
      }
      const cut = () => {
        this.cutOn = null;
        this.cuts++;
        bridge.destroy();
        meter.destroy();
      };
      const pipe = (from: Socket, to: Socket, side: 'bridge' | 'meter') => {
        const splitter = new WpduSplitter();
        from.on('data', (chunk: Buffer) => {
          const tags = splitter.push(chunk).flatMap((p) => (p.kind === 'pdu' ? [p.pdu.apdu[0]] : []));
          if (this.cutOn?.from === side && tags.includes(this.cutOn.tag)) return cut();
          to.write(chunk);
        });
        from.on('close', () => to.destroy());
      };
      pipe(bridge, meter, 'bridge');
      pipe(meter, bridge, 'meter');
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r));
    return (this.#server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }
}

describe('bridge --dlms: a recharge whose answer was lost is decided from the meter’s credit [CL-9.6]', () => {
  let t: TestService;
  let ext: Provisioned;
  let meter: DlmsMeter;
  let tcp: WrapperMeterServer;
  let proxy: CuttingProxy;
  let proxyPort: number;
  let bridge: { close(): Promise<void> } | null = null;
  let tmp: { dir: string; remove: () => void };
  const logs: string[] = [];
  const stateFile = () => join(tmp.dir, 'dlms-state.json');
  const saved = (id: string) =>
    (
      JSON.parse(readFileSync(stateFile(), 'utf8')) as {
        recharges: { id: string; status: string; check?: unknown }[];
      }
    ).recharges.find((r) => r.id === id);
  const credits = () => meter.state.recentRecharges.length;

  const startBridge = async () => {
    bridge = await runDlmsBridge({
      link: { kind: 'tcp', host: '127.0.0.1', port: proxyPort },
      client: 32,
      server: { bytes: 1, value: 1 },
      password: PASSWORD,
      broker: ext.mqtt,
      deviceId: ext.device_id,
      pollMs: 300,
      timeoutMs: 500,
      stateFile: stateFile(),
      log: (level, msg) => logs.push(`${level} ${msg}`),
    });
  };
  const settled = async () => {
    const l = await t.sim<{ ledger: { pending: unknown[] } | null }>('GET', `/devices/${ext.device_id}`);
    return l.body.data.ledger?.pending.length === 0;
  };

  beforeAll(async () => {
    t = await startTestService({ creditRetryMs: 300 });
    tmp = tempDir('meterstack-dlms-doubt-');
    const { account_id } = await newAccount(t.sim);
    const space = ok(await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Feeder' }));
    ext = await provision(t.sim, { account_id, space_id: space.space_id, external: true, model: 'full' });
    // 3 kW at 800 paise/kWh: its credit falls about 0.7 paise a second while the test runs.
    const state = createMeter(
      {
        deviceId: ext.device_id,
        model: 'full',
        mode: 'prepaid',
        balance: 50_000,
        load: { kind: 'constant', watts: 3_000 },
        telemetryPeriodMs: 500,
      },
      Date.now(),
    );
    meter = new DlmsMeter({ state, now: Date.now, log: () => undefined });
    meter.start();
    tcp = new WrapperMeterServer({ meter, port: 0, host: '127.0.0.1', log: () => undefined });
    proxy = new CuttingProxy(await tcp.listen());
    proxyPort = await proxy.listen();
    await startBridge();
    await t.svc.world.twins.waitForAvailability(ext.device_id, true, 10_000);
  }, 30_000);

  afterAll(async () => {
    await bridge?.close();
    await proxy?.close();
    await tcp?.close();
    meter?.stop();
    await t?.close();
    tmp?.remove();
  });

  it('[CL-9.6] the meter credited and its answer was cut, the bridge restarted: applied from the credit, credited once', async () => {
    const before = credits();
    proxy.cutOn = { tag: ACTION_RESPONSE, from: 'meter' };
    const res = await t.sim<{ status: string }>('POST', `/devices/${ext.device_id}/recharge`, {
      amount: 700,
      transaction_id: 'doubt-after',
    });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('pending'); // the bridge could not say: busy (MC-8.12)
    expect(proxy.cuts).toBe(1);
    expect(credits()).toBe(before + 1); // the meter did credit
    // On disk in doubt with the meter's figures from just before; the bridge goes down before it re-reads.
    proxy.refuse = true;
    await bridge?.close();
    expect(saved('doubt-after')).toMatchObject({
      status: 'in_doubt',
      check: { amount: 700, charging: true, tariffs: [800, 2_000] },
    });
    proxy.refuse = false;
    await startBridge();
    await until(settled, 10_000, 'the ledger settled');
    expect(saved('doubt-after')).toEqual(expect.objectContaining({ status: 'applied' }));
    expect(saved('doubt-after')?.check).toBeUndefined();
    expect(credits()).toBe(before + 1); // never twice
    expect(logs.some((l) => /recharge doubt-after was in doubt: applied/.test(l))).toBe(true);
  });

  it('[CL-9.6] the ACTION cut on its way to the meter: not applied from the credit, sent again, credited once', async () => {
    const before = credits();
    proxy.cutOn = { tag: ACTION_REQUEST, from: 'bridge' };
    const res = await t.sim<{ status: string }>('POST', `/devices/${ext.device_id}/recharge`, {
      amount: 500,
      transaction_id: 'doubt-before',
    });
    expect(res.body.data.status).toBe('pending');
    expect(proxy.cuts).toBe(2);
    await until(settled, 10_000, 'the ledger settled');
    expect(credits()).toBe(before + 1); // the retry credited; the cut one never arrived
    expect(saved('doubt-before')).toEqual(expect.objectContaining({ status: 'applied' }));
    expect(logs.some((l) => /recharge doubt-before was in doubt: not applied/.test(l))).toBe(true);
  });
});
