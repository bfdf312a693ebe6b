// The OBIS codes of the meter's objects, by name [CO-1.2]. Sources for each group are in COSEM.md
// ("Sources"): IS 15959 Part 2's parameter lists, the DLMS UA Blue Book, and public IS 15959 readers.

export const OBIS = {
  // [CO-5] Management objects (IS 15959 Part 2; Blue Book 0-0:40, 41, 42).
  associationCurrent: '0.0.40.0.0.255',
  associationPublic: '0.0.40.0.1.255',
  associationReader: '0.0.40.0.2.255',
  sapAssignment: '0.0.41.0.0.255',
  logicalDeviceName: '0.0.42.0.0.255',
  clock: '0.0.1.0.0.255',

  // [CO-5.4] Name plate (IS 15959 Part 2).
  serialNumber: '0.0.96.1.0.255',
  manufacturer: '0.0.96.1.1.255',
  firmwareVersion: '1.0.0.2.0.255',
  meterType: '0.0.94.91.9.255',
  namePlate: '0.0.94.91.10.255',

  // [CO-6] Instantaneous registers (class 3).
  voltage: '1.0.12.7.0.255',
  phaseCurrent: '1.0.11.7.0.255',
  neutralCurrent: '1.0.91.7.0.255',
  powerFactor: '1.0.13.7.0.255',
  frequency: '1.0.14.7.0.255',
  apparentPower: '1.0.9.7.0.255',
  activePower: '1.0.1.7.0.255',
  reactivePower: '1.0.3.7.0.255',
  energyKwh: '1.0.1.8.0.255',
  energyKvah: '1.0.9.8.0.255',
  energyKwhExport: '1.0.2.8.0.255',
  energyKvahExport: '1.0.10.8.0.255',
  powerOnMinutes: '0.0.94.91.14.255',
  // Counters (class 1).
  tamperCount: '0.0.94.91.0.255',
  billingCount: '0.0.0.1.0.255',
  programmingCount: '0.0.96.2.0.255',

  // [CO-7] Block load and daily load profile columns.
  averageVoltage: '1.0.12.27.0.255',
  blockKwh: '1.0.1.29.0.255',
  blockKvah: '1.0.9.29.0.255',
  // [CO-7.5] Billing profile columns.
  billingDate: '0.0.0.1.2.255',
  billingPowerFactor: '1.0.13.0.0.255',
  billingPowerOnMinutes: '0.0.94.91.13.255',

  // [CO-7] Profiles (class 7).
  instantaneousProfile: '1.0.94.91.0.255',
  instantaneousScaler: '1.0.94.91.3.255',
  blockLoadProfile: '1.0.99.1.0.255',
  blockLoadScaler: '1.0.94.91.4.255',
  dailyLoadProfile: '1.0.99.2.0.255',
  dailyLoadScaler: '1.0.94.91.5.255',
  billingProfile: '1.0.98.1.0.255',
  billingScaler: '1.0.94.91.6.255',

  // [CO-8] Disconnect control (class 70; Blue Book 0-0:96.3.10).
  disconnectControl: '0.0.96.3.10.255',

  // [CO-9] Prepayment: Blue Book Account (111) and Credit (112); meterstack's own Data objects in the
  // manufacturer-specific range 0-0:96.50..99 for what no standard object carries.
  account: '0.0.19.0.0.255',
  credit: '0.0.19.10.0.255',
  // [CO-9.5] The balance where Indian head-ends look for it (country-specific range 0-0:94.91).
  balanceIndia: '0.0.94.91.24.255',
  balanceTimeIndia: '0.0.94.91.25.255',
  mode: '0.0.96.50.0.255',
  ebTariff: '0.0.96.50.1.255',
  dgTariff: '0.0.96.50.2.255',
  activeTariff: '0.0.96.50.3.255',
  paymentGateway: '0.0.96.50.4.255',
} as const;

export type ObisName = keyof typeof OBIS;
