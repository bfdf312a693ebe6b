// [HA-4] The per-meter state HA reads, pure: what the v2 API's GET device shows of the meter (its twin's
// newest sample and state, online or not), one JSON object whose fields the discovery configs' value
// templates name. null where the meter has not said (HA shows "unknown").

import type { Twin } from '../../devices/types.ts';

export interface HaState {
  power: number | null;
  energy: number | null;
  voltage: number | null;
  current: number | null;
  /** Rupees (paise / 100). */
  balance: number | null;
  mode: string | null;
  tariff: 'EB' | 'DG' | null;
  relay: 'ON' | 'OFF' | null;
  online: boolean;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function haState(twin: Twin | undefined): HaState {
  const sample = twin?.latest ?? null;
  const state = twin?.state ?? null;
  // The newest balance the meter reported, from its state or its telemetry, as GET device chooses.
  const paise =
    state && sample
      ? sample.ts > state.ts
        ? sample.balance
        : state.balance
      : (state?.balance ?? sample?.balance);
  return {
    power: num(sample?.active_power),
    energy: num(sample?.energy),
    voltage: num(sample?.voltage),
    current: num(sample?.current),
    balance: typeof paise === 'number' ? paise / 100 : null,
    mode: state?.mode ?? null,
    tariff: state ? (state.active_tariff === 2 ? 'DG' : 'EB') : null,
    relay: state ? (state.relay_state ? 'ON' : 'OFF') : null,
    online: twin?.online ?? false,
  };
}
