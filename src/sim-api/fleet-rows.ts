// GET /sim/v1/fleet: one row per device (virtual and external) with what a fleet view shows, read
// from the device records and the twins (what the service saw over MQTT), never from the virtual
// meters' insides. One store query for the devices plus one per account for its spaces: cheap for
// 10,000 meters (a map lookup per twin).

import { balanceOf, latestOf, modeOf } from '../api/v2/views.ts';
import type { TwinRegistry } from '../devices/twins.ts';
import type { Store } from '../store/types.ts';

export interface FleetRow {
  device_id: string;
  name: string;
  account_id: number;
  space_id: number | null;
  kind: 'virtual' | 'external';
  /** [MC-11.1] The clock its times are on: an external meter's wall time, unless its info says [MC-4.7]. */
  clock: 'virtual' | 'wall';
  model: string;
  /** The twin: online as the service saw it over MQTT. */
  online: boolean;
  /** For a virtual meter: whether /sim/v1 has it plugged in (null for external ones). */
  plugged: boolean | null;
  mode: string;
  relay_commanded: boolean | null;
  relay_state: boolean | null;
  active_tariff: 1 | 2 | null;
  eb_tariff: number | null;
  dg_tariff: number | null;
  /** Paise. */
  balance: number;
  /** Newest sample: W, kWh, ms. */
  active_power: number | null;
  energy: number | null;
  sample_ts: number | null;
  /** ms: the newest thing heard from the meter (state, sample or availability). */
  last_seen: number | null;
  /**
   * Whether the service has ever heard from the meter (info, state, a sample or availability, kept
   * across restarts): false for an external meter provisioned but never connected, whose mode and
   * balance above are defaults, not readings (issue 20 item 5, spec-decisions 194).
   */
  heard: boolean;
}

export interface FleetView {
  /** The broker URL meters connect to, for the console's connect lines (as provisioning answers). */
  mqtt_url?: string;
  accounts: { account_id: number; name: string; spaces: { space_id: number; name: string }[] }[];
  devices: FleetRow[];
}

export interface FleetSources {
  store: Store;
  twins: Pick<TwinRegistry, 'get'>;
  /** Whether the virtual meter `id` is plugged in, or undefined when none runs here. */
  plugged(id: string): boolean | undefined;
  mqttUrl?: string;
}

export async function fleetView({ store, twins, plugged, mqttUrl }: FleetSources): Promise<FleetView> {
  const records = await store.listDevices();
  const accountIds = [...new Set(records.map((d) => d.accountId))].sort((a, b) => a - b);
  const accounts = await Promise.all(
    accountIds.map(async (id) => {
      const [account, spaces] = await Promise.all([store.getAccount(id), store.listSpaces(id)]);
      return {
        account_id: id,
        name: account?.name ?? `#${id}`,
        spaces: spaces.map((s) => ({ space_id: s.id, name: s.name })),
      };
    }),
  );
  const devices = records.map((d): FleetRow => {
    const twin = twins.get(d.deviceId);
    const st = twin?.state ?? null;
    const sample = latestOf(twin, null);
    const seen = Math.max(st?.ts ?? 0, sample?.ts ?? 0, twin?.onlineSince ?? 0);
    return {
      device_id: d.deviceId,
      name: d.name,
      account_id: d.accountId,
      space_id: d.spaceId,
      kind: d.kind,
      clock: d.kind === 'external' && twin?.info?.clock !== 'virtual' ? 'wall' : 'virtual',
      model: d.model,
      online: twin?.online ?? false,
      plugged: plugged(d.deviceId) ?? null,
      mode: modeOf(twin),
      relay_commanded: st?.relay_commanded ?? null,
      relay_state: st?.relay_state ?? null,
      active_tariff: st?.active_tariff ?? null,
      eb_tariff: st?.eb_tariff ?? null,
      dg_tariff: st?.dg_tariff ?? null,
      balance: balanceOf(twin, sample),
      active_power: typeof sample?.active_power === 'number' ? sample.active_power : null,
      energy: typeof sample?.energy === 'number' ? sample.energy : null,
      sample_ts: sample?.ts ?? null,
      last_seen: seen > 0 ? seen : null,
      heard: twin !== undefined && (twin.online || seen > 0 || twin.info !== null || st !== null),
    };
  });
  return { ...(mqttUrl === undefined ? {} : { mqtt_url: mqttUrl }), accounts, devices };
}
