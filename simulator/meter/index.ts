// The public API of one virtual meter: a pure reducer plus helpers. See README.md for the rules [M-n].

export { type FastForwardResult, fastForward } from './advance.ts';
export { activeTariffPaise, MAX_TARIFF_PAISE, reportedBalance } from './billing.ts';
export { MAX_TRANSACTION_ID_CHARS, RECENT_RECHARGES_LIMIT } from './commands.ts';
export {
  type CreateMeterOptions,
  createMeter,
  METER_DEFAULTS,
  nextBoundary,
  reportedState,
} from './create.ts';
export { type MeterInfo, meterInfo } from './info.ts';
export {
  type FriendlyHours,
  IST_OFFSET_MS,
  isCalendarDate,
  isFriendly,
  lowBalanceOf,
  MAX_EMERGENCY_CREDIT_PAISE,
  MAX_HOLIDAYS,
  MAX_WARNING_PAISE,
  MAX_WARNINGS,
  type PrepaidPolicy,
  policyProblem,
} from './policy.ts';
export { HOUSEHOLD_SHAPE, MAX_LOAD_WATTS, type PowerReading, powerAt, validateLoad } from './profiles.ts';
export { energyKwhAtWh, roundTo } from './quantize.ts';
export {
  PROPERTY_CATALOGUE,
  type PropertyInfo,
  quantizeSample,
  RESOLUTIONS,
  readingsAt,
  type SampleProperty,
  voltageAt,
} from './readings.ts';
export { defaultSerial, registerMwms, replaceMeter } from './register.ts';
export { relayClosed, relayClosedFor } from './relay.ts';
export { deserializeMeter, readMeterSnapshot, serializeMeter } from './serialize.ts';
export { RECENT_COMMANDS_LIMIT, step } from './step.ts';
export { createTraceMeter, type SampleEvent } from './trace.ts';
export * from './types.ts';
export { fleetMeterLoad } from './variety.ts';
export {
  byteLimitProblem,
  CONFIG_HOLD_SECONDS,
  CONFIG_PASSWORD,
  CONFIG_SSID,
  PASSWORD_MAX_BYTES,
  PASSWORD_MAX_CHARS,
  SSID_MAX_BYTES,
  SSID_MAX_CHARS,
  utf8Length,
  type WifiStatus,
  wifiStatus,
} from './wifi.ts';
