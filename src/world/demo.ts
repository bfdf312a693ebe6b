// The demo world: deterministic ids, seeds and settings, so every newcomer sees the same meters.
// Seeded once per database; later starts find it there (with everything that happened since).

import type { NewDeviceInput, World } from './world.ts';

const SEEDED = 'demo.seeded';
export const DEMO_ACCOUNT = 'demo';
const DAY_S = 86_400;

type DemoMeter = Omit<NewDeviceInput, 'accountId' | 'spaceId'> & { space: 'A' | 'B' | null };

export const DEMO_METERS: DemoMeter[] = [
  {
    deviceId: 'MTR-A101',
    name: 'Flat A-101',
    space: 'A',
    model: 'full',
    mode: 'prepaid',
    balance: 1_000_000,
    load: { kind: 'household', seed: 101, peakWatts: 3000 },
    udf1: 'A-101',
  },
  {
    deviceId: 'MTR-A102',
    name: 'Flat A-102',
    space: 'A',
    model: 'basic',
    mode: 'postpaid',
    balance: 0,
    load: { kind: 'household', seed: 102, peakWatts: 2200 },
    udf1: 'A-102',
  },
  {
    deviceId: 'MTR-A103',
    name: 'Lift A',
    space: 'A',
    model: 'full',
    mode: 'measurement',
    load: { kind: 'constant', watts: 800 },
    udf1: 'A-LIFT',
  },
  {
    deviceId: 'MTR-A104',
    name: 'Flat A-104 (vacant)',
    space: 'A',
    model: 'basic',
    mode: 'relay_off',
    udf1: 'A-104',
  },
  {
    deviceId: 'MTR-B201',
    name: 'Shop B-201',
    space: 'B',
    model: 'full',
    mode: 'prepaid',
    balance: 870_000,
    load: { kind: 'constant', watts: 1500 },
    udf1: 'B-201',
  },
  {
    deviceId: 'MTR-B202',
    name: 'Flat B-202 (on DG)',
    space: 'B',
    model: 'basic',
    mode: 'prepaid',
    balance: 1_500_000,
    activeTariff: 2,
    load: { kind: 'household', seed: 202, peakWatts: 1800 },
    udf1: 'B-202',
  },
  {
    deviceId: 'MTR-B203',
    name: 'Flat B-203 (offline)',
    space: 'B',
    model: 'full',
    mode: 'postpaid',
    online: false,
    load: { kind: 'household', seed: 203, peakWatts: 2500 },
    udf1: 'B-203',
  },
  {
    deviceId: 'MTR-X001',
    name: 'Unassigned spare',
    space: null,
    model: 'full',
    mode: 'postpaid',
    load: { kind: 'constant', watts: 200 },
    udf1: 'SPARE-1',
  },
];

/** Creates the demo account, spaces and meters with 30 days of history, once. Returns whether it seeded. */
export async function seedDemoWorld(world: World, apiKey: string, backfillDays = 30): Promise<boolean> {
  const existing = await world.store.getSetting(SEEDED);
  if (existing) {
    // The key may differ from the one used when seeding (a new --api-key): make it valid too.
    const accountId = Number(existing);
    if (!(await world.store.accountForApiKey(apiKey, world.clock.now())))
      await world.createApiKey(accountId, null, apiKey);
    return false;
  }
  const { account } = await world.createAccount(DEMO_ACCOUNT, apiKey);
  const a = await world.createSpace({
    accountId: account.id,
    name: 'Tower A',
    description: 'Residential tower A',
    udf1: 'TWR-A',
  });
  const b = await world.createSpace({
    accountId: account.id,
    name: 'Tower B',
    description: 'Mixed-use tower B',
    udf1: 'TWR-B',
  });
  for (const [i, m] of DEMO_METERS.entries()) {
    const { space, online, ...rest } = m;
    const { device } = await world.provisionDevice({
      ...rest,
      online: true,
      accountId: account.id,
      spaceId: space === 'A' ? a.id : space === 'B' ? b.id : null,
      seed: 1000 + i,
      backfillDays,
      backfillPeriodS: 900,
    });
    // An offline demo meter is one that was installed, reported its info and state, then lost power:
    // the API shows the mode it last reported (docs/spec-decisions.md #25).
    if (online === false) await world.setOnline(device.deviceId, false);
  }
  await world.store.setSetting(SEEDED, String(account.id));
  world.log(
    'info',
    `demo world seeded: ${DEMO_METERS.length} meters with ${backfillDays} days of history (${DAY_S * backfillDays} s)`,
  );
  return true;
}
