// A prepaid meter runs out of credit and is cut off, then a recharge restores it: a whole meterstack
// in this test's process, declared inline, driven through its controls and read through the typed
// client. Copy this file to start your own tests against meterstack.

import { type Meterstack, startMeterstack } from 'meterstack';
import { afterAll, beforeAll, expect, it } from 'vitest';

let ms: Meterstack;

beforeAll(async () => {
  ms = await startMeterstack({
    world: {
      accounts: [
        {
          name: 'acme',
          spaces: [
            {
              name: 'Flat 101',
              // 100 paise at 800 paise/kWh lasts 0.125 kWh: 7.5 minutes at 1 kW.
              meters: [{ id: 'MTR-PP-1', mode: 'prepaid', balance: 100, eb_tariff: 800, load_watts: 1000 }],
            },
          ],
        },
      ],
    },
  });
});
afterAll(() => ms.stop());

/** The relay as the v2 API reports it (endpoint 5, read live from the meter). */
async function relayState(): Promise<boolean> {
  const { api, unwrap } = ms.client;
  const metrics = await unwrap(
    api.GET('/api/v2/devices/{device_id}/metrics', { params: { path: { device_id: 'MTR-PP-1' } } }),
  );
  return metrics.relay_state;
}

it('cuts a prepaid meter off when its credit runs out, and a recharge restores it', async () => {
  expect(await relayState()).toBe(true);

  // The virtual clock stands still until a test moves it.
  await ms.advance('10m');
  const device = await ms.client.device('MTR-PP-1');
  if (!device.ok) throw device.error;
  expect(device.data.balance).toBeLessThan(0);
  expect(await relayState()).toBe(false);

  await ms.recharge('MTR-PP-1', 1000);
  expect(await relayState()).toBe(true);
});
