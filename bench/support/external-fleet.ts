// The fleets the benches run: N external devices provisioned through /sim/v1, each driven by an
// in-process VirtualMeter over its own MQTT login (half basic, half full, household loads).

import type { VirtualClock } from '../../simulator/clock.ts';
import { createMeter } from '../../simulator/meter/index.ts';
import { VirtualMeter } from '../../simulator/virtual-meter.ts';
import { pool, type Serve } from './serve-process.ts';

export interface ExternalDevice {
  device_id: string;
  mqtt: { password: string };
}

const modelOf = (i: number) => (i % 2 === 0 ? 'basic' : 'full');

/** Provisions `count` external devices `<prefix>-00000`… in `accountId`, 16 requests at a time. */
export function provisionExternal(
  serve: Serve,
  accountId: number,
  count: number,
  prefix: string,
): Promise<ExternalDevice[]> {
  return pool(
    Array.from({ length: count }, (_, i) => i),
    16,
    (i) =>
      serve.sim<ExternalDevice>('POST', '/devices', {
        account_id: accountId,
        external: true,
        model: modelOf(i),
        device_id: `${prefix}-${String(i).padStart(5, '0')}`,
      }),
  );
}

/** A postpaid household VirtualMeter for each device, on `clock`, not yet connected. */
export function meterFor(
  devices: ExternalDevice[],
  opts: {
    clock: VirtualClock;
    mqttUrl: string;
    periodMs: number;
    log: (level: 'info' | 'warn' | 'error', msg: string) => void;
  },
): VirtualMeter[] {
  return devices.map(
    (d, i) =>
      new VirtualMeter({
        state: createMeter(
          {
            deviceId: d.device_id,
            model: modelOf(i),
            mode: 'postpaid',
            load: { kind: 'household', seed: i + 1, peakWatts: 2000 },
            telemetryPeriodMs: opts.periodMs,
          },
          opts.clock.now(),
        ),
        now: () => opts.clock.now(),
        mqttUrl: opts.mqttUrl,
        password: d.mqtt.password,
        log: opts.log,
      }),
  );
}
