// examples/client/read-and-switch.ts works, against the demo world, and reports an offline meter by
// its code instead of sending it a command.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { readAndSwitch } from '../../examples/client/read-and-switch.ts';
import { type Meterstack, startMeterstack } from '../../src/harness/index.ts';

let ms: Meterstack;
beforeAll(async () => {
  ms = await startMeterstack({ demo: true, client: { retry: { attempts: 2 }, sleep: async () => {} } });
});
afterAll(() => ms.stop());

it('reads MTR-A101 and switches its relay off, then on', async () => {
  const off = await readAndSwitch(ms.client, 'MTR-A101', false);
  expect(off).toMatchObject({ device_id: 'MTR-A101', relay: 'off', energy_kwh: expect.any(Number) });
  expect((await ms.meter('MTR-A101')).relay_state).toBe(false);
  await readAndSwitch(ms.client, 'MTR-A101', true);
  expect((await ms.meter('MTR-A101')).relay_state).toBe(true);
});

it('an offline meter (the demo MTR-B203) is reported, not commanded', async () => {
  await expect(readAndSwitch(ms.client, 'MTR-B203', false)).rejects.toThrow(/MTR-B203 is offline/);
});
