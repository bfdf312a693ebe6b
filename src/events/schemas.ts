// Every observable thing meterstack does, as one typed event (issue 9). The domain and the edges emit
// these on the bus (bus.ts); logs, the journal, SSE and the web console only subscribe [STYLE 10].
// Names are `<family>.<what>`; `data` is the event's own payload. Money is integer paise, times are
// ms since the epoch: `vt` virtual (the world's clock), `wt` wall.

import { z } from 'zod';

const Paise = z.int();
const Ms = z.int().nonnegative();

const relay = z.object({ commanded: z.boolean(), effective: z.boolean() });

/** The payload of each event type. Add a type here first; the bus, journal and console follow. */
export const EVENT_DATA = {
  // ---- meter life ----
  /** A meter's MQTT login was accepted by the broker (virtual, bridged or real). */
  'meter.connected': z.object({ client_id: z.string() }),
  'meter.online': z.object({ since: Ms.nullable() }),
  /**
   * will: the broker published the meter's will (connection lost); bye: the meter said it goes;
   * link_timeout: the broker's keep-alive ran out; unplugged: /sim/v1 took it offline. `said`: the
   * meter's own words for why, when its offline carried them [MC-6.8] (a bridge: "serial port closed").
   */
  'meter.offline': z.object({
    reason: z.enum(['will', 'bye', 'link_timeout', 'unplugged']),
    said: z.string().optional(),
  }),
  /** The meter's info differs from what it said before; `changed` names the fields. */
  'meter.info': z.object({
    model: z.string(),
    firmware: z.string(),
    has_relay: z.boolean(),
    telemetry_period_s: z.number(),
    changed: z.array(z.string()),
  }),

  // ---- meter state (durable) ----
  'meter.relay': z.object({ ...relay.shape, was: relay }),
  'meter.mode': z.object({ mode: z.string(), was: z.string().nullable() }),
  'meter.tariff': z.object({
    active_tariff: z.union([z.literal(1), z.literal(2)]),
    was: z.union([z.literal(1), z.literal(2)]).nullable(),
    eb_tariff: Paise,
    dg_tariff: Paise,
  }),
  /** WiFi: which network it uses, and whether the meter is in configuration mode (button hold). */
  'meter.wifi': z.object({ wifi_type: z.string(), config_mode: z.boolean() }),
  /**
   * [MC-7.9] The meter's register was set back to zero (a new epoch): from here the service adds
   * `offset_kwh` to its register values; `last_kwh` is the old register's last value.
   */
  'meter.register_reset': z.object({ epoch: z.int(), offset_kwh: z.number(), last_kwh: z.number() }),
  /** [MC-7.10] The register rolled over at `max_kwh` (its last value `last_kwh`); the offset grew by it. */
  'meter.register_rollover': z.object({
    epoch: z.int(),
    offset_kwh: z.number(),
    max_kwh: z.number(),
    last_kwh: z.number(),
  }),
  /** [MC-4.5] Another physical meter now reports behind this device id (its serial changed). */
  'meter.replaced': z.object({ old_serial: z.string(), new_serial: z.string() }),
  /** A prepaid meter's relay opened because its balance ran out, with the balance at that instant. */
  'meter.cutoff': z.object({ balance: Paise }),
  /** The relay of a cut-off prepaid meter closed again (recharge, mode change), with the balance. */
  'meter.restored': z.object({ balance: Paise }),
  /** [MC-5.5] The tamper conditions a meter reports changed (appeared or cleared); [] is none. */
  'meter.tamper': z.object({ tamper: z.array(z.string()), was: z.array(z.string()) }),

  // ---- faults of virtual meters (issue 12, /sim/v1/devices/{id}/faults) ----
  /** A fault was switched on or scheduled: its id, kind, and virtual start and end (null: until cleared). */
  'fault.added': z.object({ fault_id: z.string(), kind: z.string(), from: Ms, until: Ms.nullable() }),
  /** Faults cleared through /sim/v1 before their end (one, or all a meter had). */
  'fault.cleared': z.object({ fault_ids: z.array(z.string()) }),
  /**
   * Issue 12 §4 [MC-5.6]: a prepaid balance fell through a low-balance warning threshold (the lowest one,
   * if a single report crossed several), with the balance the meter reported then.
   */
  'meter.low_balance': z.object({ threshold: Paise, balance: Paise }),

  // ---- money (durable) ----
  'money.recharge': z.object({
    // pending: an external meter has not answered yet; the same credit comes again as applied or refused [LEDGER-5].
    outcome: z.enum(['applied', 'duplicate', 'refused', 'pending']),
    transaction_id: z.string(),
    amount: Paise,
    /** The ledger entry's sequence number; null when nothing entered the ledger. */
    ledger_seq: z.int().nullable(),
    balance: Paise.nullable(),
    reason: z.string().optional(),
  }),

  // ---- commands to meters ----
  'command.sent': z.object({ id: z.string(), op: z.string() }),
  'command.acked': z.object({ id: z.string(), op: z.string(), latency_ms: z.number() }),
  'command.refused': z.object({
    id: z.string(),
    op: z.string(),
    code: z.string(),
    message: z.string(),
    latency_ms: z.number(),
  }),
  'command.timeout': z.object({ id: z.string(), op: z.string(), after_ms: z.number() }),

  // ---- HTTP ----
  /** One answered request. `account_id` when an API key was recognised; the key itself never. */
  'http.request': z.object({
    method: z.string(),
    route: z.string(),
    url: z.string(),
    status: z.int(),
    latency_ms: z.number(),
    account_id: z.int().nullable(),
    code: z.string().optional(),
  }),

  // ---- broker ----
  /**
   * A refused CONNECT (client id and username given) or connection (`peer` only, client_id ''). Past the
   * first few of an interval they come as one event per reason with `count` [MC-10.5]; absent: one.
   */
  'broker.refused': z.object({
    client_id: z.string(),
    username: z.string().nullable(),
    reason: z.string(),
    peer: z.string().optional(),
    count: z.int().positive().optional(),
  }),
  /** Messages refused under the MQTT contract [MC-9.5], counted; floods come as one summary. */
  'contract.refused': z.object({ reason: z.string(), count: z.int().positive(), detail: z.string() }),

  // ---- clock ----
  'clock.advanced': z.object({ from: Ms, to: Ms }),
  'clock.speed': z.object({ speed: z.number(), was: z.number() }),

  // ---- the whole world (issue 12 §2, spec-decisions 110-116) ----
  /** A named snapshot was saved: what it holds and the virtual time it was taken at. */
  'world.snapshot': z.object({
    name: z.string(),
    clock: Ms,
    devices: z.int().nonnegative(),
    readings: z.int().nonnegative(),
  }),
  /** The world was put back as snapshot `name` was; the clock went from `from` to `to` (back, usually). */
  'world.restored': z.object({ name: z.string(), from: Ms, to: Ms, devices: z.int().nonnegative() }),
  /** Every account, key, space, device, meter, ledger entry and reading removed; `devices` is how many went. */
  'world.reset': z.object({ devices: z.int().nonnegative() }),

  // ---- telemetry, summarised: never one event per sample ----
  /** Per second at most: the meters that reported since the last one, with their newest values. */
  'telemetry.summary': z.object({
    interval_ms: Ms,
    messages: z.int().nonnegative(),
    samples: z.int().nonnegative(),
    meters: z.array(
      z.object({
        device_id: z.string(),
        ts: Ms,
        active_power: z.number(),
        energy: z.number(),
        voltage: z.number(),
        balance: Paise,
      }),
    ),
  }),

  // ---- the service's own messages (what used to be plain log lines) ----
  log: z.object({ level: z.enum(['debug', 'info', 'warn', 'error']), msg: z.string() }),
} as const;

export type EventType = keyof typeof EVENT_DATA;
export type EventData<T extends EventType> = z.infer<(typeof EVENT_DATA)[T]>;
export const EVENT_TYPES = Object.keys(EVENT_DATA) as EventType[];

/** Kept in the store as well as the in-memory journal: money and meter state. */
export const DURABLE_TYPES: ReadonlySet<EventType> = new Set<EventType>([
  'money.recharge',
  'meter.relay',
  'meter.mode',
  'meter.tariff',
  'meter.wifi',
  'meter.cutoff',
  'meter.restored',
  'meter.tamper',
  'meter.register_reset',
  'meter.register_rollover',
  'meter.replaced',
  // Money went back or away with them: the journal keeps saying so.
  'world.restored',
  'world.reset',
  'meter.low_balance',
]);

export interface MeterEvent<T extends EventType = EventType> {
  /** Ascends by one per event within a process; never reused across restarts (gaps may follow one). */
  seq: number;
  type: T;
  /** Virtual time (the world's clock), ms since epoch. */
  vt: number;
  /** Wall time, ms since epoch. */
  wt: number;
  device_id?: string;
  account_id?: number;
  data: EventData<T>;
}

/** Checks a whole event, for tests and for anything read back from outside the process. */
export const EventSchema = z.discriminatedUnion(
  'type',
  EVENT_TYPES.map((type) =>
    z.object({
      seq: z.int().positive(),
      type: z.literal(type),
      vt: Ms,
      wt: Ms,
      device_id: z.string().optional(),
      account_id: z.int().optional(),
      data: EVENT_DATA[type],
    }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
);
