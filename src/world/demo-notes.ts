// What makes each demo meter worth a look, in a few words for the serve banner (issue 9 §4): its
// mode and balance, model, tariff, load, whether it is offline or in no space, and for a prepaid meter
// on a steady load how long until it is cut off. Pure: the meter's definition and its state now.

import { type MeterState, UNITS_PER_PAISE } from '../../simulator/meter/types.ts';
import type { DEMO_METERS } from './demo.ts';

export interface DemoMeterNow {
  def: (typeof DEMO_METERS)[number];
  /** The running meter's state; undefined if it is not running (then the definition speaks). */
  state?: MeterState;
  online: boolean;
}

/** Cut-offs closer than this are called out, with the clock advance that shows one. */
const SOON_H = 48;

const rupees = (paise: number) =>
  `${paise < 0 ? '-' : ''}₹${(Math.abs(paise) / 100).toLocaleString('en-IN', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

const kw = (watts: number) => (watts >= 1000 ? `${watts / 1000} kW` : `${watts} W`);

/** Paise from the meter's exact balance units, rounded toward -infinity as the meter reports it. */
function balancePaise(units: bigint): number {
  const q = units / UNITS_PER_PAISE;
  return Number(units < 0n && q * UNITS_PER_PAISE !== units ? q - 1n : q);
}

/** The notes after the model column: this many characters keep a banner line within 80 columns. */
export const NOTE_WIDTH = 60;

/** e.g. "full  prepaid ₹59.98 at 1.5 kW: cut off in ~5 h (advance 6 h)": the model, then the notes. */
export function demoNote(m: DemoMeterNow): string {
  const { def, state } = m;
  const mode = state?.mode ?? def.mode ?? 'postpaid';
  const load = state?.load ?? def.load;
  const dg = (state?.activeTariff ?? def.activeTariff ?? 1) === 2;
  const notes: string[] = [];
  if (!m.online) notes.push('offline (lost power)');
  if (def.space === null) notes.push('in no space (a spare)');
  let told = false; // the load, by the cut-off estimate
  if (mode === 'prepaid') {
    const balance = state ? balancePaise(state.balance) : (def.balance ?? 0);
    // A prepaid meter's relay opens once its balance goes below zero [M-6]; a restart finds it so.
    let prepaid =
      balance < 0 ? `prepaid, cut off at ${rupees(balance)}: recharge it` : `prepaid ${rupees(balance)}`;
    const tariff = state ? (dg ? state.dgTariff : state.ebTariff) : 0;
    if (load?.kind === 'constant' && load.watts > 0 && tariff > 0 && balance > 0) {
      const hours = balance / ((load.watts / 1000) * tariff);
      if (hours < SOON_H) {
        prepaid += ` at ${kw(load.watts)}: cut off in ~${Math.max(1, Math.round(hours))} h (advance ${Math.ceil(hours) + 1} h)`;
        told = true;
      }
    }
    notes.push(prepaid);
  } else if (mode === 'measurement') notes.push('measurement only (never cut off)');
  else if (mode === 'relay_off') notes.push('relay held off');
  else notes.push(mode);
  if (dg) notes.push(`on the DG tariff${state ? ` (${rupees(state.dgTariff)}/kWh)` : ''}`);
  if (!told) {
    const watts = load === undefined ? 0 : load.kind === 'constant' ? load.watts : load.peakWatts;
    const text =
      watts === 0
        ? 'no load'
        : load?.kind === 'constant'
          ? `${kw(watts)} steady`
          : `home load to ${kw(watts)}`;
    // The load is the least of it: left out where it would not fit.
    if ([...notes, text].join(', ').length <= NOTE_WIDTH) notes.push(text);
  }
  return `${(state?.model ?? def.model ?? 'basic').padEnd(6)}${notes.join(', ')}`;
}
