import { energyKwhAtWh, registerMwms, reportedState } from '../../simulator/meter/index.ts';
import type { VirtualMeter } from '../../simulator/virtual-meter.ts';
import type { Twin } from '../devices/types.ts';
import type { DeviceRecord, Space } from '../store/types.ts';
import { toIstIso } from '../time/ist.ts';
import { faultView, liveFaults } from '../world/faults.ts';
import type { NewDeviceInput } from '../world/world.ts';
import { policyFromBody, policyView } from './policy-schemas.ts';
import type { DeviceBody } from './schemas.ts';

export function spaceView(space: Space) {
  return {
    space_id: space.id,
    name: space.name,
    description: space.description,
    devices: [],
    tags: [],
    udf1: space.udf1,
    udf2: space.udf2,
    udf3: space.udf3,
    udf4: space.udf4,
    udf5: space.udf5,
  };
}

const UNITS_PER_PAISE = 3_600_000_000_000n;

/** The virtual meter's own view of itself, exact balance included. */
export function meterView(meter: VirtualMeter, now: number) {
  const st = meter.state;
  const reported = reportedState(st, now);
  return {
    device_id: st.deviceId,
    model: st.model,
    firmware: st.firmware,
    online: meter.online,
    connected: meter.connected,
    meter_time: toIstIso(st.lastTs),
    ...reported,
    ts: undefined,
    balance_exact: {
      units: st.balance.toString(),
      units_per_paise: UNITS_PER_PAISE.toString(),
      paise: Number(st.balance) / Number(UNITS_PER_PAISE),
    },
    energy_kwh: Number(st.energy) / Number(UNITS_PER_PAISE),
    // [M-25] The physical meter and its register as displayed (energy_kwh is what it integrated and billed).
    serial: st.serial,
    register_epoch: st.registerEpoch,
    register_kwh: energyKwhAtWh(registerMwms(st)),
    load: st.load,
    telemetry_period_s: st.telemetryPeriodMs / 1000,
    wifi: {
      ssid: st.wifi.ssid,
      password: st.wifi.password,
      rssi: st.wifi.rssi,
      config_mode: st.wifi.configMode,
    },
    pending_samples: meter.pendingSamples,
    // Issue 12: its active and scheduled faults, as /sim/v1/devices/{id}/faults lists them.
    faults: liveFaults(st, now).map((f) => faultView(f, now)),
    // Issue 12 §4: the policy, and the warning threshold the balance is below ([M-30]).
    prepaid_policy: policyView(st.prepaidPolicy),
    low_balance: reported.low_balance ?? null,
  };
}

export function deviceInputFrom(b: DeviceBody): NewDeviceInput {
  return {
    accountId: b.account_id,
    spaceId: b.space_id ?? null,
    deviceId: b.device_id,
    name: b.name,
    description: b.description,
    model: b.model,
    mode: b.mode,
    balance: b.balance,
    ebTariff: b.eb_tariff,
    dgTariff: b.dg_tariff,
    activeTariff: b.active_tariff,
    load:
      b.load_profile === 'household'
        ? { kind: 'household', seed: b.seed ?? 1, peakWatts: b.load_watts ?? 2000 }
        : { kind: 'constant', watts: b.load_watts ?? 0 },
    telemetryPeriodS: b.telemetry_period_s,
    online: b.online,
    backfillDays: b.backfill_days,
    backfillPeriodS: b.backfill_period_s,
    seed: b.seed,
    external: b.external,
    prepaidPolicy: b.prepaid_policy ? policyFromBody(b.prepaid_policy) : null,
    udf1: b.udf1 ?? null,
    udf2: b.udf2 ?? null,
    udf3: b.udf3 ?? null,
    udf4: b.udf4 ?? null,
    udf5: b.udf5 ?? null,
  };
}

/**
 * An external device (a bridged or real meter, or one in another process): nothing of its meter runs
 * here, so there is no meter state to show, only what the service knows: its record and whether its
 * twin is online (issue 8 item 20).
 */
export function externalView(device: DeviceRecord, twin: Twin | undefined) {
  return {
    device_id: device.deviceId,
    external: true as const,
    account_id: device.accountId,
    space_id: device.spaceId,
    model: device.model,
    online: twin?.online ?? false,
  };
}
