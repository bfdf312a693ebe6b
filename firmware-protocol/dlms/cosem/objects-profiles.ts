// The profiles [CO-7]: instantaneous, block load, daily load, billing, and a scaler profile for each,
// with their columns (capture objects) in order.

import { col, profile } from './define.ts';
import { OBIS } from './obis.ts';
import { type CaptureObject, CLASSES, type CosemObject } from './types.ts';

const REG = CLASSES.register.id;
const DATA = CLASSES.data.id;
const CLOCK = col(CLASSES.clock.id, OBIS.clock);

/** [CO-7.1] The instantaneous profile's columns, in IS 15959 Part 2's order, then ours. */
export const INSTANTANEOUS_COLUMNS: CaptureObject[] = [
  CLOCK,
  col(REG, OBIS.voltage),
  col(REG, OBIS.phaseCurrent),
  col(REG, OBIS.neutralCurrent),
  col(REG, OBIS.powerFactor),
  col(REG, OBIS.frequency),
  col(REG, OBIS.apparentPower),
  col(REG, OBIS.activePower),
  col(REG, OBIS.energyKwh),
  col(REG, OBIS.energyKvah),
  col(REG, OBIS.powerOnMinutes),
  col(DATA, OBIS.tamperCount),
  col(DATA, OBIS.billingCount),
  col(DATA, OBIS.programmingCount),
  col(REG, OBIS.energyKwhExport),
  col(REG, OBIS.energyKvahExport),
  // [CO-7.1] meterstack's additions after the standard's columns.
  col(REG, OBIS.reactivePower),
  col(CLASSES.credit.id, OBIS.credit),
];

/** [CO-7.3] Block load: the standard's columns, then cumulative kWh and the balance (CO-7.4). */
export const BLOCK_LOAD_COLUMNS: CaptureObject[] = [
  CLOCK,
  col(REG, OBIS.averageVoltage),
  col(REG, OBIS.blockKwh),
  col(REG, OBIS.blockKvah),
  col(REG, OBIS.energyKwh),
  col(CLASSES.credit.id, OBIS.credit),
];

/** [CO-7.4] Daily load: the day's closing registers, stamped at midnight. */
export const DAILY_LOAD_COLUMNS: CaptureObject[] = [
  CLOCK,
  col(REG, OBIS.energyKwh),
  col(REG, OBIS.energyKvah),
];

/** [CO-7.5] Billing: the month's closing registers. */
export const BILLING_COLUMNS: CaptureObject[] = [
  col(DATA, OBIS.billingDate),
  col(REG, OBIS.billingPowerFactor),
  col(REG, OBIS.energyKwh),
  col(REG, OBIS.energyKvah),
  col(REG, OBIS.billingPowerOnMinutes),
];

/** [CO-7.2] A scaler profile holds attribute 3 (scaler_unit) of each register column. */
function scalerColumns(columns: CaptureObject[]): CaptureObject[] {
  return columns.filter((c) => c.classId === REG).map((c) => col(REG, c.obis, 3));
}

/** [CO-7.6] Default block load capture period: 15 minutes, as IS 15959 Part 2 sets it. */
export const BLOCK_PERIOD_S = 900;
export const DAY_S = 86_400;

export const PROFILES: CosemObject[] = [
  profile(OBIS.instantaneousProfile, 'Instantaneous parameters profile', INSTANTANEOUS_COLUMNS, 0),
  profile(OBIS.instantaneousScaler, 'Instantaneous scaler profile', scalerColumns(INSTANTANEOUS_COLUMNS), 0),
  profile(OBIS.blockLoadProfile, 'Block load profile', BLOCK_LOAD_COLUMNS, BLOCK_PERIOD_S),
  profile(OBIS.blockLoadScaler, 'Block load scaler profile', scalerColumns(BLOCK_LOAD_COLUMNS), 0),
  profile(OBIS.dailyLoadProfile, 'Daily load profile', DAILY_LOAD_COLUMNS, DAY_S),
  profile(OBIS.dailyLoadScaler, 'Daily load scaler profile', scalerColumns(DAILY_LOAD_COLUMNS), 0),
  profile(OBIS.billingProfile, 'Billing profile', BILLING_COLUMNS, 0),
  profile(OBIS.billingScaler, 'Billing scaler profile', scalerColumns(BILLING_COLUMNS), 0),
];
