// The harness's controls: what a test does to the simulated world, each one a /sim/v1 call through the
// typed client (the same public API a QA script or the console uses), failing with a MeterstackError.

import type { MeterstackClient } from '../client/index.ts';
import { DURATION, durationMs } from '../qa/scenario/schema.ts';

/** What GET /sim/v1/devices/{id} says of a virtual meter (the fields a test most often checks). */
export interface MeterView {
  device_id: string;
  online: boolean;
  connected: boolean;
  mode: string;
  relay_state: boolean;
  relay_commanded: boolean;
  /** Integer paise, as the v2 API shows it. */
  balance: number;
  energy_kwh: number;
  active_tariff: number;
  [field: string]: unknown;
}

export interface Controls {
  /**
   * Moves the virtual clock forward, meters billing and reporting on the way: a duration such as
   * `'90s'`, `'15m'`, `'2h'`, `'1d'`, or a number of seconds.
   */
  advance(by: string | number): Promise<{ from: string; to: string }>;
  /** A meter's load: constant watts (optionally a power factor), or a household profile peaking at watts. */
  setLoad(
    meter: string,
    watts: number,
    opts?: { profile?: 'constant' | 'household'; powerFactor?: number },
  ): Promise<void>;
  /** A payment through the ledger, in paise; the transaction id makes it idempotent (default: a fresh one). */
  recharge(
    meter: string,
    amount: number,
    transactionId?: string,
  ): Promise<{ applied: boolean; [field: string]: unknown }>;
  /** Unplugs a meter from the network (its will fires: `is_online` false), or plugs it back. */
  setOnline(meter: string, online: boolean): Promise<void>;
  offline(meter: string): Promise<void>;
  online(meter: string): Promise<void>;
  /** The meter as the simulation sees it (relay, balance, energy, load, WiFi, ...). */
  meter(meter: string): Promise<MeterView>;
}

export function controlsOf(client: MeterstackClient): Controls {
  const { sim, unwrap } = client;
  let recharges = 0;
  const path = (meter: string) => ({ params: { path: { device_id: meter } } });
  const setOnline = async (meter: string, online: boolean) => {
    await unwrap(sim.POST('/sim/v1/devices/{device_id}/online', { ...path(meter), body: { online } }));
  };
  return {
    async advance(by) {
      if (typeof by === 'string' && !DURATION.test(by))
        throw new TypeError(`advance: ${JSON.stringify(by)} is not a duration such as 90s, 15m, 2h or 1d`);
      const seconds = Math.round(durationMs(by) / 1000);
      const data = await unwrap(sim.POST('/sim/v1/clock/advance', { body: { seconds } }));
      return data as { from: string; to: string };
    },
    async setLoad(meter, watts, opts = {}) {
      const body = {
        watts,
        ...(opts.profile && { profile: opts.profile }),
        ...(opts.powerFactor !== undefined && { power_factor: opts.powerFactor }),
      };
      await unwrap(sim.POST('/sim/v1/devices/{device_id}/load', { ...path(meter), body }));
    },
    async recharge(meter, amount, transactionId) {
      const transaction_id = transactionId ?? `harness-${Date.now().toString(36)}-${++recharges}`;
      const body = { amount, transaction_id };
      const data = await unwrap(sim.POST('/sim/v1/devices/{device_id}/recharge', { ...path(meter), body }));
      return data as { applied: boolean };
    },
    setOnline,
    offline: (meter) => setOnline(meter, false),
    online: (meter) => setOnline(meter, true),
    async meter(meter) {
      return (await unwrap(sim.GET('/sim/v1/devices/{device_id}', path(meter)))) as MeterView;
    },
  };
}
