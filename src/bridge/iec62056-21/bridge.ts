// The IEC 62056-21 bridge: read the meter's mode C readout every period, map its OBIS values to a
// contract sample, keep availability from the run of read outcomes and answer commands (`read` live,
// the rest `unsupported`: an optical port reads, it does not switch) [IEC-9.5..IEC-9.7]. The MQTT side is
// the meter link through the Modbus bridge's adapter (../modbus/mqtt-meter.ts). Never stops on its own.

import type { WireReply } from '../../../firmware-protocol/mqtt/codec.ts';
import type { InfoPayload } from '../../../firmware-protocol/mqtt/schemas.ts';
import type { MeterCommand, MeterModel, Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { PROPERTY_CATALOGUE } from '../../../simulator/meter/index.ts';
import { INITIAL_LINK, type LinkState, nextLink } from '../modbus/availability.ts';
import { type Log, MqttMeter } from '../modbus/mqtt-meter.ts';
import { stateOf } from '../modbus/profile.ts';
import { sampleOfReadout } from './obis-map.ts';
import type { IecSession } from './session.ts';

/** Reported as `firmware` [MC-4.2] with the meter's own identification after it. */
export const BRIDGE_FIRMWARE = 'meterstack-iec62056-21/1';

/** [IEC-9.6] Why each op but `read` is refused [MC-8.3]. */
export const UNSUPPORTED: Readonly<Record<Exclude<MeterCommand['op'], 'read'>, string>> = {
  set_relay: 'this meter is read through its IEC 62056-21 optical port: no relay can be switched there',
  set_mode: 'this meter is read through its IEC 62056-21 optical port: its mode cannot be set there',
  set_tariff: 'this meter is read through its IEC 62056-21 optical port: tariffs cannot be set there',
  set_active_tariff: 'this meter is read through its IEC 62056-21 optical port: tariffs cannot be set there',
  set_gateway: 'this meter is read through its IEC 62056-21 optical port: no gateway setting',
  set_wifi: 'this meter is read through its IEC 62056-21 optical port: it has no WiFi there',
  get_wifi: 'this meter is read through its IEC 62056-21 optical port: it has no WiFi there',
  recharge: 'this meter is read through its IEC 62056-21 optical port: it keeps no prepaid balance there',
};

export interface IecBridgeDeps {
  session: IecSession;
  broker: { url: string; username: string; password: string };
  deviceId: string;
  pollMs: number;
  log: Log;
  onFatal?: (reason: string) => void;
  now: () => number;
  where: string;
}

type Read =
  | { ok: true; sample: Sample; model: MeterModel; ident: string }
  | { ok: false; kind: 'failure' | 'port_gone'; message: string };

export class IecBridge {
  readonly #deps: IecBridgeDeps;
  /** [IEC-9.5] Made at the first good readout, which says what the meter has. */
  #mqtt: MqttMeter | null = null;
  #model: MeterModel | null = null;
  #link: LinkState = INITIAL_LINK;
  #lastEnergy = 0;
  #lastError = '';
  /** The last good readout's sample, for a `read` that comes soon after it [IEC-9.6]. */
  #last: Sample | null = null;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  #loop: Promise<void> = Promise.resolve();

  constructor(deps: IecBridgeDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#deps.session.start();
    this.#loop = this.#tick();
  }

  async close(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#deps.session.close();
    await this.#loop;
    await this.#mqtt?.close();
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    const started = this.#deps.now();
    try {
      await this.#poll();
    } catch (err) {
      // A bug must not end the bridge: log it and keep polling [IEC-9.7].
      this.#deps.log(
        'error',
        `${this.#deps.deviceId}: iec62056-21: poll crashed: ${(err as Error).stack ?? err}`,
      );
    }
    if (this.#stopped) return;
    const delay = Math.max(0, this.#deps.pollMs - (this.#deps.now() - started));
    this.#timer = setTimeout(() => {
      this.#loop = this.#tick();
    }, delay);
  }

  async #poll(): Promise<void> {
    const read = await this.#read();
    if (this.#stopped) return;
    if (!read.ok) {
      this.#setLink(read.kind, read.message);
      return;
    }
    this.#last = read.sample;
    const mqtt = this.#connect(read.model, read.ident);
    this.#setLink('success', '');
    if (read.sample.energy < this.#lastEnergy) {
      // [MC-7.5] energy never decreases: a meter reset or a misread; keep it out of history.
      this.#deps.log(
        'warn',
        `${this.#deps.deviceId}: iec62056-21: energy fell from ${this.#lastEnergy} to ${read.sample.energy} kWh; sample dropped`,
      );
      return;
    }
    this.#lastEnergy = read.sample.energy;
    mqtt.addSample(read.sample);
  }

  async #read(): Promise<Read> {
    const outcome = await this.#deps.session.read();
    if (!outcome.ok) {
      const kind = outcome.code === 'port_gone' ? 'port_gone' : 'failure';
      return { ok: false, kind, message: `${outcome.code} [${outcome.rule}] ${outcome.message}` };
    }
    const mapped = sampleOfReadout(outcome.lines, this.#deps.now(), this.#model ?? undefined);
    if (!mapped.ok) return { ok: false, kind: 'failure', message: `bad_data [IEC-9.5] ${mapped.error}` };
    const { manufacturer, ident } = outcome.identification;
    return {
      ok: true,
      sample: mapped.value.sample,
      model: mapped.value.model,
      ident: `${manufacturer} ${ident}`,
    };
  }

  /** [IEC-9.5] The meter link, made once, declaring the model the first readout showed. */
  #connect(model: MeterModel, ident: string): MqttMeter {
    if (this.#mqtt) return this.#mqtt;
    const { deviceId, broker, log, now, onFatal, pollMs } = this.#deps;
    this.#model = model;
    const info: InfoPayload = {
      v: 1,
      device_id: deviceId,
      model,
      firmware: `${BRIDGE_FIRMWARE} ${ident}`.slice(0, 64),
      has_relay: false, // [IEC-9.6]
      telemetry_period_s: pollMs / 1000,
      properties: [...PROPERTY_CATALOGUE[model]],
    };
    log('info', `${deviceId}: iec62056-21: ${ident} answers: a ${model} meter; connecting to the broker`);
    this.#mqtt = new MqttMeter({
      broker,
      deviceId,
      info,
      state: stateOf,
      answer: (command) => this.#answer(command),
      now,
      log,
      // [MC-6.7] a live read on every (re)connection.
      onConnected: () => {
        if (!this.#stopped) void this.#poll().catch(() => undefined);
      },
      onFatal,
    });
    return this.#mqtt;
  }

  #setLink(outcome: 'success' | 'failure' | 'port_gone', message: string): void {
    const { deviceId, log, where } = this.#deps;
    const before = this.#link;
    const after = nextLink(before, outcome);
    this.#link = after;
    if (outcome === 'success') {
      if (!before.online) log('info', `${deviceId}: iec62056-21: ${where} answering: online`);
      this.#lastError = '';
    } else if (message !== this.#lastError || before.online !== after.online) {
      // [IEC-9.7] Each new kind of failure once, not every poll of a meter that stays silent.
      const state = after.online ? `${after.failures} failed in a row` : 'offline';
      log('warn', `${deviceId}: iec62056-21: ${where}: ${message} (${state})`);
      this.#lastError = message;
    }
    this.#mqtt?.setOnline(after.online, `iec62056-21: ${message}`); // [MC-6.8]
  }

  /** [MC-8.3, MC-8.6] `read` reads the meter live; every other op is refused as `unsupported`. */
  async #answer(command: MeterCommand): Promise<WireReply> {
    if (command.op !== 'read') {
      return { ok: false, error: { code: 'unsupported', message: UNSUPPORTED[command.op] } };
    }
    // [IEC-9.6] A readout takes 1.5 to 2 s with a 300 Bd sign-on: one younger than the poll period is
    // the meter's present reading; an older one is read again (joining a read under way).
    const last = this.#last;
    if (last !== null && this.#link.online && this.#deps.now() - last.ts < this.#deps.pollMs) {
      return { ok: true, data: { readings: last, state: stateOf(last.ts) } };
    }
    const read = await this.#read();
    if (!read.ok) {
      return {
        ok: false,
        error: { code: 'busy', message: `the meter did not give a readout: ${read.message}` },
      };
    }
    this.#last = read.sample;
    return { ok: true, data: { readings: read.sample, state: stateOf(read.sample.ts) } };
  }
}
