// [MC-4.2] The `info` a meter publishes, from its state: what it is, what it measures, which physical
// meter it is [MC-4.5] and where its register rolls over [MC-4.6].

import { energyKwhAtWh } from './quantize.ts';
import { PROPERTY_CATALOGUE, type PropertyInfo } from './readings.ts';
import type { MeterModel, MeterState } from './types.ts';

export interface MeterInfo {
  v: 1;
  device_id: string;
  model: MeterModel;
  firmware: string;
  has_relay: boolean;
  telemetry_period_s: number;
  properties: PropertyInfo[];
  serial: string;
  register_max_kwh?: number;
}

export function meterInfo(s: MeterState): MeterInfo {
  const info: MeterInfo = {
    v: 1,
    device_id: s.deviceId,
    model: s.model,
    firmware: s.firmware,
    has_relay: true,
    telemetry_period_s: s.telemetryPeriodMs / 1000,
    properties: [...PROPERTY_CATALOGUE[s.model]],
    serial: s.serial,
  };
  if (s.registerMax !== null) info.register_max_kwh = energyKwhAtWh(s.registerMax);
  return info;
}
