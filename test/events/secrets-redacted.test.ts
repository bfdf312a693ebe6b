// [SEC-1] Secrets typed where they do not belong are redacted in every log line and every event: a key
// in an unexpected query parameter or an unrouted path, an MQTT password typed into the username
// field. The service runs for real (HTTP over a socket, a real mqtt.js client on its embedded broker);
// what is checked is what a reader gets: the journal (GET /sim/v1/events) and the service's log lines.

import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  newAccount,
  provision,
  startTestService,
  type TestService,
} from '../helpers/service.ts';

/** A demo key given by flag that looks like no pattern: only its value can find it. */
const DEMO_KEY = 'plain-demo-key-0042';

interface Journaled {
  type: string;
  data: Record<string, unknown>;
}

async function journal(t: TestService): Promise<Journaled[]> {
  const res = await t.sim<{ events: Journaled[] }>('GET', '/events?limit=1000');
  return res.body.data.events;
}

/** A login the broker refuses; resolves once the refusal came back. */
async function refusedLogin(url: string, username: string): Promise<void> {
  await expect(
    mqtt.connectAsync(url, { username, password: 'wrong', reconnectPeriod: 0, connectTimeout: 3000 }),
  ).rejects.toThrow();
}

describe('[SEC-1] secrets typed in odd places are redacted in log lines and events', () => {
  let t: TestService;
  let key: string;
  let meterSecret: string;
  beforeAll(async () => {
    t = await startTestService({ apiKey: DEMO_KEY });
    const account = await newAccount(t.sim);
    key = account.api_key;
    const space = (
      await t.sim<{ space_id: number }>('POST', '/spaces', { account_id: account.account_id, name: 'A' })
    ).body.data;
    meterSecret = (await provision(t.sim, { account_id: account.account_id, space_id: space.space_id })).mqtt
      .password;
  });
  afterAll(async () => t?.close());

  it('a key in a query parameter of any name, in an unrouted path and %-encoded: not in the journal or the log', async () => {
    const base = t.svc.httpUrl;
    const probes = [
      `/api/v2/spaces/?x=${key}`,
      `/api/v2/spaces/?k=${encodeURIComponent(key)}`,
      `/${key}/devices`,
      `/sim/v1/${ADMIN_TOKEN}`,
      `/nowhere?t=${ADMIN_TOKEN}`,
      `/nowhere?d=${DEMO_KEY}`,
      `/x/${key.replace('_', '%5F')}`,
      `/sim/v1/devices?mqtt=${meterSecret}`,
    ];
    for (const p of probes) await fetch(`${base}${p}`);
    const events = await journal(t);
    const urls = events.filter((e) => e.type === 'http.request').map((e) => String(e.data.url));
    expect(urls.length).toBeGreaterThanOrEqual(probes.length);
    const text = JSON.stringify(events) + t.logs.join('\n');
    for (const secret of [key, ADMIN_TOKEN, DEMO_KEY, meterSecret, key.slice(4)])
      expect(text).not.toContain(secret);
    expect(urls).toContain('/msk_***/devices');
    expect(urls).toContain('/nowhere?t=***');
  });

  it('an MQTT password typed as the username (a key, a meter secret, the admin token): redacted in the refusal event and line', async () => {
    for (const username of [key, meterSecret, ADMIN_TOKEN]) await refusedLogin(t.svc.mqttUrl, username);
    const deadline = Date.now() + 5000;
    let refused: Journaled[] = [];
    while (Date.now() < deadline) {
      refused = (await journal(t)).filter((e) => e.type === 'broker.refused');
      if (refused.length >= 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(refused.map((e) => e.data.username)).toEqual(['msk_***', 'mqs_***', '***']);
    const text = JSON.stringify(refused) + t.logs.join('\n');
    for (const secret of [key, meterSecret, ADMIN_TOKEN]) expect(text).not.toContain(secret);
    expect(t.logs.some((l) => l.includes('user msk_***'))).toBe(true);
  });
});
