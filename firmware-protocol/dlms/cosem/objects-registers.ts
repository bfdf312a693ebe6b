// The registers and counters [CO-6]: value type, scaler and unit of each, chosen so one step of the
// register is the resolution the MQTT contract declares (MC-4.4) [CO-3.3].

import { data, register } from './define.ts';
import { OBIS } from './obis.ts';
import type { CosemObject } from './types.ts';

export const REGISTERS: CosemObject[] = [
  // [CO-6.1] Instantaneous values.
  register(OBIS.voltage, 'Voltage', 'long-unsigned', -2, 'V'),
  register(OBIS.phaseCurrent, 'Phase current', 'double-long-unsigned', -3, 'A'),
  register(OBIS.neutralCurrent, 'Neutral current', 'double-long-unsigned', -3, 'A'),
  register(OBIS.powerFactor, 'Signed power factor', 'long', -3, 'count'),
  register(OBIS.frequency, 'Frequency', 'long-unsigned', -2, 'Hz'),
  register(OBIS.apparentPower, 'Apparent power', 'double-long-unsigned', -1, 'VA'),
  register(OBIS.activePower, 'Signed active power', 'double-long', -1, 'W'),
  register(OBIS.reactivePower, 'Signed reactive power', 'double-long', -1, 'var'),
  // [CO-6.2] Cumulative energies: whole Wh and VAh (the contract's 0.001 kWh).
  register(OBIS.energyKwh, 'Cumulative energy kWh import', 'double-long-unsigned', 0, 'Wh'),
  register(OBIS.energyKvah, 'Cumulative energy kVAh import', 'double-long-unsigned', 0, 'VAh'),
  register(OBIS.energyKwhExport, 'Cumulative energy kWh export', 'double-long-unsigned', 0, 'Wh'),
  register(OBIS.energyKvahExport, 'Cumulative energy kVAh export', 'double-long-unsigned', 0, 'VAh'),
  register(OBIS.powerOnMinutes, 'Cumulative power-ON duration', 'double-long-unsigned', 0, 'min'),
  // [CO-6.3] Counters (Data, no scaler).
  data(OBIS.tamperCount, 'Cumulative tamper count', 'long-unsigned'),
  data(OBIS.billingCount, 'Cumulative billing count', 'double-long-unsigned'),
  data(OBIS.programmingCount, 'Cumulative programming count', 'long-unsigned'),
  // [CO-7.3] Block load columns.
  register(OBIS.averageVoltage, 'Average voltage (block)', 'long-unsigned', -2, 'V'),
  register(OBIS.blockKwh, 'Block energy kWh import', 'double-long-unsigned', 0, 'Wh'),
  register(OBIS.blockKvah, 'Block energy kVAh import', 'double-long-unsigned', 0, 'VAh'),
  // [CO-7.5] Billing profile columns.
  data(OBIS.billingDate, 'Billing date', 'octet-string'),
  register(OBIS.billingPowerFactor, 'Average power factor (billing period)', 'long', -3, 'count'),
  register(
    OBIS.billingPowerOnMinutes,
    'Power-ON duration (billing period)',
    'double-long-unsigned',
    0,
    'min',
  ),
];
