// The OpenAPI description of each /sim/v1 operation (not the spec: the simulation control API): its
// operationId, summary, description and responses, kept here so the route file reads as routes.
// `data` is documented as an object or list of objects: its fields are listed in the README's /sim/v1
// table and the decisions that introduced them, and QA scripts read them by name.

import { z } from 'zod';
import { errorResponses, timestampSchema } from '../http/error-schemas.ts';
import type { ErrorCode } from '../http/errors.ts';

const ANY_ROUTE: ErrorCode[] = ['admin_authentication_error', 'internal_error'];
export const BODY: ErrorCode[] = ['validation_error', 'payload_too_large', 'unsupported_media_type'];
export const PATH_PARAM: ErrorCode[] = ['malformed_url', 'uri_too_long', 'validation_error'];
/** A virtual meter's route: none by that id (404), external or still backfilling (409). */
export const VIRTUAL_METER: ErrorCode[] = [...PATH_PARAM, 'not_found', 'conflict'];

export const object = z.record(z.string(), z.unknown());
export const list = z.array(object);

export interface SimResponses {
  data: z.ZodType;
  /** 201 for a route that creates something. */
  status?: 200 | 201;
  errors?: ErrorCode[];
}

export function simResponses(r: SimResponses) {
  const ok = z
    .object({
      success: z.literal(true),
      data: r.data,
      message: z.string().optional(),
      timestamp: timestampSchema,
    })
    .meta({ 'x-response-description': r.status === 201 ? 'Created' : 'Success' });
  return { [r.status ?? 200]: ok, ...errorResponses([...ANY_ROUTE, ...(r.errors ?? [])]) };
}

const OPERATIONS = {
  createAccount: {
    summary: 'Create an account and its first API key',
    description: 'Answers `{account_id, name, api_key}`; the key is shown only here.',
    response: simResponses({ data: object, errors: BODY }),
  },
  createApiKey: {
    summary: 'Mint another API key for an account',
    description:
      'Optional `expires_at` (ISO 8601 with offset; judged on the virtual clock) and `ttl_seconds` ' +
      '(1 to 604800: a lifetime on the wall clock, which a clock advance does not shorten). ' +
      'Answers `{api_key, expires_at, wall_expires_at}` (null: no such expiry).',
    response: simResponses({ data: object, errors: [...PATH_PARAM, ...BODY, 'not_found'] }),
  },
  revokeApiKey: {
    summary: 'Revoke an API key',
    description: 'The key answers `401 authentication_error` from then on.',
    response: simResponses({ data: z.literal(true), errors: [...PATH_PARAM, 'not_found'] }),
  },
  createSpace: {
    summary: 'Create a space in an account',
    description: 'Answers the space as the v2 API shows it, with its `account_id`.',
    response: simResponses({ data: object, errors: [...BODY, 'not_found'] }),
  },
  createDevice: {
    summary: 'Provision a device (a virtual meter, or an external one)',
    description:
      'Answers `201` with the device, its MQTT credentials and, for a virtual meter, its state. With ' +
      '`backfill_days` it answers once that history is stored (spec-decisions 52).',
    response: simResponses({ data: object, status: 201, errors: [...BODY, 'not_found', 'conflict'] }),
  },
  getSimDevice: {
    summary: 'A virtual meter as it sees itself (or an external device)',
    description:
      "The meter's exact balance, energy, load, WiFi and its ledger check; for an external device what its twin saw " +
      'and, once credited through the ledger, its credits checked one by one [LEDGER-6].',
    response: simResponses({ data: object, errors: VIRTUAL_METER }),
  },
  checkLedger: {
    summary: 'Check every meter against its ledger',
    description:
      '`{meters, disagreements, external, at_start}`: virtual and fleet-worker meters [LEDGER-3]; `external` ' +
      '`{meters, pending, disagreements}` for external meters credited through the ledger [LEDGER-6].',
    response: simResponses({ data: object }),
  },
  setDeviceOnline: {
    summary: 'Connect or disconnect a virtual meter',
    description: '`{online}`; a disconnected meter is offline to the v2 API.',
    response: simResponses({ data: object, errors: [...VIRTUAL_METER, ...BODY] }),
  },
  rechargeDevice: {
    summary: 'Recharge a meter (paise): virtual, fleet worker or external',
    description:
      'Idempotent by `transaction_id`: a repeat answers `applied: false`. The ledger row is written first ' +
      '(LEDGER-1). An external meter (a bridged serial meter, real firmware) answers `{balance, applied, ' +
      'status}`: `applied` once it acknowledged the credit, `pending` while it is offline or has not answered ' +
      '(sent again by the same `transaction_id` when it is back, LEDGER-5); its error reply is `400 ' +
      'device_rejected`, nothing credited (spec-decisions 127–131).',
    response: simResponses({ data: object, errors: [...VIRTUAL_METER, ...BODY, 'device_rejected'] }),
  },
  setDeviceLoad: {
    summary: "Set a virtual meter's load",
    description: 'Constant watts (with a power factor) or a household profile with its peak.',
    response: simResponses({ data: object, errors: [...VIRTUAL_METER, ...BODY] }),
  },
  pressDeviceButton: {
    summary: "Press a virtual meter's button",
    description: 'Held about 5 s it enters WiFi configuration mode (spec §4). Answers `{config_mode}`.',
    response: simResponses({ data: object, errors: [...VIRTUAL_METER, ...BODY] }),
  },
  addDeviceFault: {
    summary: 'Switch a fault on a virtual meter',
    description:
      'Body `{kind, ...params, start_at?, duration_s?, seed?}`: one of 21 kinds (docs/faults.md), from ' +
      '`start_at` (virtual, not in the past; default now) for `duration_s` virtual seconds (default: until ' +
      'cleared). Answers `201` with the fault `{fault_id, kind, ...params, start_at, end_at, active, seed}`. ' +
      'A fault of the same kind already covering part of that time: `409` (spec-decisions 93–99).',
    response: simResponses({ data: object, status: 201, errors: [...VIRTUAL_METER, ...BODY] }),
  },
  listDeviceFaults: {
    summary: "A virtual meter's active and scheduled faults",
    description: 'Each as POST answers it; ended and cleared faults are not listed.',
    response: simResponses({ data: list, errors: VIRTUAL_METER }),
  },
  clearDeviceFaults: {
    summary: "Clear all of a virtual meter's faults",
    description: 'Active ones end now (an outage is restored); answers the faults cleared.',
    response: simResponses({ data: list, errors: VIRTUAL_METER }),
  },
  clearDeviceFault: {
    summary: 'Clear one fault of a virtual meter',
    description: 'Answers the fault cleared; `404` when the meter has no such active or scheduled fault.',
    response: simResponses({ data: object, errors: VIRTUAL_METER }),
  },
  replaceDevice: {
    summary: 'Replace a virtual meter with a new physical one',
    description:
      'Body `{serial?, keep_balance?}`. The same `device_id`, name, udfs, space, account, mode and tariffs; a ' +
      'new `serial` (default generated; 1 to 64 printable characters, not the present one), its energy ' +
      'register from 0 in a new `register_epoch` (MQTT contract MC-4.5, MC-7.9), no faults. The service ' +
      'joins the two registers, so energy readings and history (last − first) stay continuous. The balance ' +
      'moves to the new meter (no ledger entry); `keep_balance: false` refunds it through a ledger ' +
      '`adjustment` instead. The meter reconnects with its new info. Answers `{device_id, old_serial, ' +
      'new_serial, register_epoch, balance, refund}`; an external, worker-hosted or backfilling device: 409 ' +
      '(spec-decisions 108).',
    response: simResponses({ data: object, errors: [...VIRTUAL_METER, ...BODY] }),
  },
  advanceClock: {
    summary: 'Move the virtual clock forward',
    description:
      'Every virtual meter lives through the jump (usage, billing, cut-offs). External meters live on wall time and cannot (MC-11.3): `wall_clock_meters` lists those online, whose next data map onto the new time. Answers `{from, to, now, workers, wall_clock_meters}`.',
    response: simResponses({ data: object, errors: BODY }),
  },
  setClockSpeed: {
    summary: "Set the virtual clock's speed",
    description: 'Virtual ms per wall ms, 0 to 1,000,000; 0 freezes it (spec-decisions 54).',
    response: simResponses({ data: object, errors: BODY }),
  },
  getClock: {
    summary: 'Read the virtual clock',
    description:
      "`{now, now_ms, speed, wall_offset_ms}`; `wall_offset_ms`, the world process's wall shift (virtual − wall as its start, jumps and restores set it, not its speed), is what external meters' times are mapped by (MC-11.2).",
    response: simResponses({ data: object }),
  },
  listBackfills: {
    summary: 'Histories being written',
    description: '`[{device_id, done_days, total_days, samples}]` (spec-decisions 52).',
    response: simResponses({ data: list }),
  },
  getPrepaidPolicy: {
    summary: "A virtual meter's prepaid policy",
    description:
      '`{device_id, prepaid_policy, low_balance, balance, relay_state}`; `prepaid_policy` null: none.',
    response: simResponses({ data: object, errors: VIRTUAL_METER }),
  },
  setPrepaidPolicy: {
    summary: "Set a virtual meter's prepaid policy (emergency credit, friendly hours, warnings)",
    description:
      'The whole policy, from now: `low_balance_warnings` (descending paise), `emergency_credit` (paise), ' +
      '`friendly_hours` `{from, to, holidays}` in IST or null. Left out: none. Answers as GET.',
    response: simResponses({ data: object, errors: [...VIRTUAL_METER, ...BODY] }),
  },
  clearPrepaidPolicy: {
    summary: "Remove a virtual meter's prepaid policy",
    description: 'Back to the plain prepaid rule (cut off below zero). Answers as GET.',
    response: simResponses({ data: object, errors: VIRTUAL_METER }),
  },
  getFleet: {
    summary: 'The fleet: every device with what its twin saw',
    description:
      "The web console's rows (spec-decisions 62): `{accounts, devices, mqtt_url}`; a device's `heard` is false for a meter " +
      'the service has never heard from (an external meter waiting for its first connection).',
    response: simResponses({ data: object }),
  },
  listSimDevices: {
    summary: 'List every device, virtual and external',
    description: "Each virtual meter's reported state, and each external device's twin view.",
    response: simResponses({ data: list }),
  },
  saveSnapshot: {
    summary: 'Save the whole world as a named snapshot',
    description:
      'Accounts, keys, spaces, devices, meter states, ledger, readings and the clock (spec-decisions 110). ' +
      'Answers `201 {name, created_at, clock, clock_ms, speed, devices, readings, bytes}`; `409` if the name exists ' +
      'or another snapshot, restore, reset or clock advance runs, or fleet workers host meters.',
    response: simResponses({ data: object, status: 201, errors: [...BODY, 'conflict'] }),
  },
  listSnapshots: {
    summary: 'List the saved world snapshots',
    description: 'Oldest first, each as `saveSnapshot` answers it.',
    response: simResponses({ data: list }),
  },
  restoreSnapshot: {
    summary: 'Put the world back as a snapshot saved it',
    description:
      "Every meter stops and comes back as it was; the clock goes to the snapshot's; the events journal keeps " +
      'going with a `world.restored` event (spec-decisions 111, 112). `404` unknown name; `409` while another ' +
      'snapshot, restore, reset or clock advance runs.',
    response: simResponses({ data: object, errors: [...PATH_PARAM, 'not_found', 'conflict'] }),
  },
  deleteSnapshot: {
    summary: 'Delete a world snapshot',
    description: '`404` unknown name.',
    response: simResponses({ data: z.literal(true), errors: [...PATH_PARAM, 'not_found'] }),
  },
  importSnapshot: {
    summary: 'Take a snapshot file in under `?name=`',
    description:
      'The body is the file as `exportSnapshot` gave it (application/octet-stream, at most 2 GiB: `413` over). ' +
      'A file that is not a meterstack snapshot of this schema: `422 validation_error`; a taken name: `409`.',
    response: simResponses({ data: object, status: 201, errors: [...BODY, 'conflict'] }),
  },
  resetDevice: {
    summary: 'Reset one virtual meter to how it started',
    description:
      'Its readings and reports go; registers zero, relay on, faults cleared; its configuration stays; its balance ' +
      'is the opening amount again, through one `adjustment` ledger entry (spec-decisions 116). Answers ' +
      '`{device_id, balance, adjustment}`.',
    response: simResponses({ data: object, errors: [...PATH_PARAM, 'not_found', 'conflict'] }),
  },
  resetWorld: {
    summary: 'Empty the world',
    description:
      'Every account, key, space, device, meter, ledger entry and reading goes; the clock and the admin token ' +
      'stay (spec-decisions 113). Answers `{devices_removed}`.',
    response: simResponses({ data: object, errors: ['conflict'] }),
  },
  getHistorySpan: {
    summary: "The time of a device's oldest and newest stored readings",
    description:
      '`{device_id, first, last, from, to}`: `first` and `last` the times of its oldest and newest stored ' +
      'samples (+05:30), `from` and `to` their IST days, ready for `history.csv` or `from_date`/`to_date` of ' +
      'the v2 history; all null when nothing is stored. Any device, virtual or external (HX-5).',
    response: simResponses({ data: object, errors: [...PATH_PARAM, 'not_found'] }),
  },
} as const;

/**
 * [HX-1..HX-4] GET /sim/v1/devices/{device_id}/history.csv: its 200 is a CSV file, not the envelope.
 */
export const HISTORY_CSV_DOC = {
  tags: ['simulation'],
  security: [{ adminToken: [] }],
  operationId: 'exportDeviceHistoryCsv',
  summary: "A device's history as a CSV file",
  description: [
    'One row per interval with a stored sample, one column per property the meter measures, each value the',
    'one `getDeviceHistory` answers for that property, interval and days, stamped as it stamps it (the',
    "interval's last second, +05:30). The header names each unit: `timestamp (IST),energy (kWh),active_power",
    '(W),…`. `from` and `to` are IST days (YYYY-MM-DD), at most 366 days apart, as `from_date`/`to_date`;',
    '`interval` 15m, 30m, 60m or 1d (default). Any device of any account, spaceless too. Streamed, with',
    'Content-Disposition (spec-decisions 174–176).',
  ].join(' '),
  response: {
    200: {
      description: 'The CSV file (text/csv; header line, then one line per interval)',
      content: { 'text/csv': { schema: z.string() } },
    },
    ...errorResponses([...ANY_ROUTE, ...PATH_PARAM, 'not_found']),
  },
};

/**
 * GET /sim/v1/snapshots/{name}/export: its 200 is the file itself, not the envelope, so it is documented
 * here rather than in OPERATIONS (whose routes all answer the envelope).
 */
export const EXPORT_SNAPSHOT_DOC = {
  tags: ['simulation'],
  security: [{ adminToken: [] }],
  operationId: 'exportSnapshot',
  summary: "A world snapshot's portable file",
  description:
    'A SQLite file (application/octet-stream, with Content-Disposition), whichever store the service runs on; ' +
    'import it here or into another service, or start one from it with `serve --from-snapshot` (spec-decisions ' +
    '110, 114, 115). `404` unknown name; `409` on an API instance.',
  response: {
    200: z.string().meta({ 'x-response-description': 'The snapshot file', format: 'binary' }),
    ...errorResponses([...ANY_ROUTE, ...PATH_PARAM, 'not_found', 'conflict']),
  },
};

export type SimOperation = keyof typeof OPERATIONS;

/** The schema fields that document operation `id` (spread into the route's `schema`). */
export function simDoc(id: SimOperation) {
  return { tags: ['simulation'], security: [{ adminToken: [] }], operationId: id, ...OPERATIONS[id] };
}
