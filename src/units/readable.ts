// Numbers a person reads (CLI summaries, log lines, reports, exports) at the resolution their meter
// declares (MC-4.4: energy to the Wh, power to 0.1 W, voltage to 0.01 V, …), never the binary float
// noise of a sum: `58.208 kWh`, not `58.20826666666667 kWh` (spec-decisions 220). The one helper for
// it, so every place a person reads a value writes it the same way. Machine-read JSON keeps numbers.

/** The resolution meterstack's meters declare for each value when a meter declares none (MC-4.4). */
export const DEFAULT_STEPS = {
  energy: 0.001,
  active_power: 0.1,
  voltage: 0.01,
  current: 0.001,
  power_factor: 0.001,
  apparent_power: 0.1,
  reactive_power: 0.1,
} as const;

/** Decimal places of a step as written: 0.001 → 3, 0.1 → 1, 1 → 0, 0.25 → 2, 5 → 0, 1e-7 → 7. */
export function placesOf(step: number): number {
  const [mantissa = '', exponent = '0'] = String(step).split('e');
  return Math.max(0, Math.min(20, (mantissa.split('.')[1] ?? '').length - Number(exponent)));
}

/**
 * `value` as the nearest whole number of `step`s, with exactly the step's decimal places, as a meter's
 * display shows it: `58.208` (0.001), `230.10` (0.01), `12` (1), `-0.500`; never `-0`. Not a finite
 * number, or a step that is not a positive number: the value as JavaScript writes it.
 */
export function atResolution(value: number, step: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (!(step > 0) || !Number.isFinite(step)) return String(value);
  const places = placesOf(step);
  const steps = Math.round(Math.abs(value) / step);
  if (steps === 0) return (0).toFixed(places);
  const sign = value < 0 ? '-' : '';
  // A whole number of steps, written through integers where they are exact: no toFixed of a sum.
  const scale = 10 ** places;
  const units = steps * Math.round(step * scale); // the value in units of the last place
  if (Number.isSafeInteger(units)) {
    const digits = String(units).padStart(places + 1, '0');
    const cut = digits.length - places;
    return `${sign}${digits.slice(0, cut)}${places > 0 ? `.${digits.slice(cut)}` : ''}`;
  }
  return `${sign}${(steps * step).toFixed(places)}`;
}

/** Energy in kWh at its step (default: to the Wh), with its unit: `58.208 kWh`. */
export function kwhText(kwh: number, step: number = DEFAULT_STEPS.energy): string {
  return `${atResolution(kwh, step)} kWh`;
}
