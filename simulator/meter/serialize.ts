// A meter's state as JSON text for snapshots (src/store MeterSnapshot.state). Bigints travel as decimal
// strings; every other value is JSON-exact (doubles print in their shortest round-tripping form).

import { FAULT_KINDS, type Fault } from './faults/types.ts';
import { type FriendlyHours, type PrepaidPolicy, policyProblem } from './policy.ts';
import { validateLoad } from './profiles.ts';
import { defaultSerial } from './register.ts';
import { type CommandReply, type MeterState, MODELS, MODES } from './types.ts';

const FORMAT_VERSION = 1;

export function serializeMeter(state: MeterState): string {
  return JSON.stringify({
    v: FORMAT_VERSION,
    ...state,
    energy: state.energy.toString(),
    balance: state.balance.toString(),
    charged: state.charged.toString(),
    registerBase: state.registerBase.toString(),
    registerMax: state.registerMax === null ? null : state.registerMax.toString(),
  });
}

type Json = Record<string, unknown>;

function fail(message: string): never {
  throw new TypeError(`deserializeMeter: ${message}`);
}

function obj(x: unknown, name: string): Json {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) fail(`${name} must be an object`);
  return x as Json;
}

function str(o: Json, key: string): string {
  const v = o[key];
  if (typeof v !== 'string') fail(`${key} must be a string`);
  return v;
}

function num(o: Json, key: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${key} must be a finite number`);
  return v;
}

function bool(o: Json, key: string): boolean {
  const v = o[key];
  if (typeof v !== 'boolean') fail(`${key} must be a boolean`);
  return v;
}

function big(o: Json, key: string): bigint {
  const v = str(o, key);
  if (!/^-?\d+$/.test(v)) fail(`${key} must be a decimal integer string`);
  return BigInt(v);
}

function oneOf<T extends string>(o: Json, key: string, values: readonly T[]): T {
  const v = str(o, key);
  if (!(values as readonly string[]).includes(v)) fail(`${key} must be one of ${values.join(', ')}`);
  return v as T;
}

export function deserializeMeter(text: string): MeterState {
  return readMeterSnapshot(text).state;
}

/**
 * The state and whether the text carried the `charged` register [M-15]: snapshots written before it
 * existed read as `charged: 0n`, `chargedKnown: false`, and their owner decides what it was.
 */
export function readMeterSnapshot(text: string): { state: MeterState; chargedKnown: boolean } {
  const o = obj(JSON.parse(text), 'state');
  const chargedKnown = o['charged'] !== undefined;
  return { state: parse(o, chargedKnown), chargedKnown };
}

function parse(o: Json, chargedKnown: boolean): MeterState {
  if (o['v'] !== FORMAT_VERSION) fail(`unsupported format version ${String(o['v'])}`);
  const activeTariff = num(o, 'activeTariff');
  if (activeTariff !== 1 && activeTariff !== 2) fail('activeTariff must be 1 or 2');
  const load = obj(o['load'], 'load') as unknown as MeterState['load'];
  try {
    validateLoad(load);
  } catch (e) {
    fail((e as Error).message);
  }
  const wifi = obj(o['wifi'], 'wifi');
  const recharges = o['recentRecharges'];
  if (!Array.isArray(recharges) || !recharges.every((r) => typeof r === 'string')) {
    fail('recentRecharges must be an array of strings');
  }
  const commands = o['recentCommands'];
  if (!Array.isArray(commands)) fail('recentCommands must be an array');
  return {
    deviceId: str(o, 'deviceId'),
    model: oneOf(o, 'model', MODELS),
    firmware: str(o, 'firmware'),
    mode: oneOf(o, 'mode', MODES),
    relayCommanded: bool(o, 'relayCommanded'),
    ebTariff: num(o, 'ebTariff'),
    dgTariff: num(o, 'dgTariff'),
    activeTariff,
    pgEnabled: bool(o, 'pgEnabled'),
    energy: big(o, 'energy'),
    balance: big(o, 'balance'),
    charged: chargedKnown ? big(o, 'charged') : 0n,
    load,
    seed: num(o, 'seed'),
    wifi: {
      ssid: str(wifi, 'ssid'),
      password: str(wifi, 'password'),
      rssi: num(wifi, 'rssi'),
      configMode: bool(wifi, 'configMode'),
    },
    lastTs: num(o, 'lastTs'),
    telemetryPeriodMs: num(o, 'telemetryPeriodMs'),
    nextTelemetryTs: num(o, 'nextTelemetryTs'),
    recentRecharges: recharges,
    recentCommands: commands.map((c: unknown) => {
      const entry = obj(c, 'recentCommands[]');
      return { id: str(entry, 'id'), reply: obj(entry['reply'], 'reply') as unknown as CommandReply };
    }),
    // Snapshots written before faults existed have none.
    faults: parseFaults(o['faults']),
    faultSeq: o['faultSeq'] === undefined ? 0 : num(o, 'faultSeq'),
    // [M-25] Snapshots written before serials and register epochs: the first meter, never reset.
    serial: o['serial'] === undefined ? defaultSerial(str(o, 'deviceId')) : str(o, 'serial'),
    registerEpoch: o['registerEpoch'] === undefined ? 0 : num(o, 'registerEpoch'),
    registerBase: o['registerBase'] === undefined ? 0n : big(o, 'registerBase'),
    registerMax: o['registerMax'] === undefined || o['registerMax'] === null ? null : big(o, 'registerMax'),
    // Snapshots written before prepaid policies existed have none.
    prepaidPolicy: parsePolicy(o['prepaidPolicy']),
  };
}

function parsePolicy(x: unknown): PrepaidPolicy | null {
  if (x === undefined || x === null) return null;
  const o = obj(x, 'prepaidPolicy');
  const w = o['lowBalanceWarnings'];
  if (!Array.isArray(w) || !w.every((n) => typeof n === 'number')) fail('lowBalanceWarnings must be numbers');
  let friendlyHours: FriendlyHours | null = null;
  if (o['friendlyHours'] !== null) {
    const f = obj(o['friendlyHours'], 'friendlyHours');
    const h = f['holidays'];
    if (!Array.isArray(h) || !h.every((d) => typeof d === 'string')) fail('holidays must be strings');
    friendlyHours = { from: str(f, 'from'), to: str(f, 'to'), holidays: h };
  }
  const policy = { lowBalanceWarnings: w, emergencyCredit: num(o, 'emergencyCredit'), friendlyHours };
  const problem = policyProblem(policy);
  if (problem) fail(`prepaidPolicy.${problem.loc.join('.')}: ${problem.msg}`);
  return policy;
}

function parseFaults(x: unknown): Fault[] {
  if (x === undefined) return [];
  if (!Array.isArray(x)) fail('faults must be an array');
  return x.map((f: unknown) => {
    const o = obj(f, 'faults[]');
    oneOf(o, 'kind', FAULT_KINDS);
    str(o, 'id');
    num(o, 'from');
    num(o, 'seed');
    if (o['until'] !== null) num(o, 'until');
    obj(o['params'], 'faults[].params');
    return o as unknown as Fault;
  });
}
