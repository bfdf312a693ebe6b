// Read a meter and switch its relay with the typed client, the way the spec asks a client to:
// check is_online first, let transient device failures be retried with backoff, and handle every
// error by its code.
//
//   npm start                                    # a meterstack with the demo world on :8080
//   npx tsx examples/client/read-and-switch.ts   # or: … <base URL> <API key> <device id> [on|off]

import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMeterstackClient, type MeterstackClient } from 'meterstack/client';

export interface Outcome {
  device_id: string;
  energy_kwh: number | undefined;
  relay: 'on' | 'off';
}

export async function readAndSwitch(ms: MeterstackClient, deviceId: string, on: boolean): Promise<Outcome> {
  // 1. is_online first (spec §7): a command to an offline meter would only fail.
  const device = await ms.ensureOnline(deviceId);
  if (!device.ok) {
    const e = device.error;
    switch (e.code) {
      case 'device_offline':
        throw new Error(`${deviceId} is offline; try again later (${e.detail})`);
      case 'device_not_found':
      case 'device_not_in_space':
        throw new Error(`${deviceId}: ${e.detail}`);
      case 'authentication_error':
        throw new Error('the API key was refused: check METERSTACK_API_KEY');
      default:
        throw e; // a MeterstackError: code, status, detail
    }
  }
  const energy = device.data.readings.find((r) => r.property_id === 'energy')?.value;

  // 2. The command; a device_timeout is retried with backoff by the client before it gets here.
  const { api, unwrap } = ms;
  await unwrap(
    api.PUT('/api/v2/devices/{device_id}/relay', {
      params: { path: { device_id: deviceId } },
      body: { state: on },
    }),
  );
  return { device_id: deviceId, energy_kwh: energy, relay: on ? 'on' : 'off' };
}

// Run as a script (not when a test imports it).
if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const [baseUrl = 'http://127.0.0.1:8080', apiKey = process.env.METERSTACK_API_KEY ?? 'msk_demo'] =
    process.argv.slice(2);
  const [deviceId = 'MTR-A101', state = 'off'] = process.argv.slice(4);
  const ms = createMeterstackClient({
    baseUrl,
    apiKey,
    onRetry: (r) => console.error(`retrying ${r.method} ${r.url} in ${r.delayMs} ms (${r.reason})`),
  });
  console.log(await readAndSwitch(ms, deviceId, state === 'on'));
}
