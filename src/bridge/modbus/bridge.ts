// The Modbus bridge loop: poll the meter every period, turn each answer into a contract sample, keep its
// availability from the run of poll outcomes, and answer commands. Reopens a vanished port with backoff
// and never stops on its own.

import type { WireReply } from '../../../firmware-protocol/mqtt/codec.ts';
import type { MeterCommand, Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { INITIAL_LINK, type LinkState, nextLink } from './availability.ts';
import { type Log, MqttMeter } from './mqtt-meter.ts';
import type { ModbusPort } from './port.ts';
import { infoOf, planCommand, stateOf } from './profile.ts';
import { decodeReadings, type ReadBlock, type RegisterDef, readBlocks, sampleOf } from './registers.ts';

/** Delays between attempts to reopen a port that is gone: doubling from the first to the last. */
export const REOPEN_BACKOFF_MS = { first: 250, max: 2_000 } as const;

export interface BridgeDeps {
  port: ModbusPort;
  registers: readonly RegisterDef[];
  broker: { url: string; username: string; password: string };
  deviceId: string;
  pollMs: number;
  log: Log;
  /** [SP-7.5] A refused login. */
  onFatal?: (reason: string) => void;
  now: () => number;
  /** A label for logs, e.g. "/dev/ttyUSB0 unit 1". */
  where: string;
}

export class ModbusBridge {
  readonly #deps: BridgeDeps;
  readonly #blocks: ReadBlock[];
  readonly #mqtt: MqttMeter;
  #link: LinkState = INITIAL_LINK;
  #lastEnergy = 0;
  #backoffMs: number = REOPEN_BACKOFF_MS.first;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  #loop: Promise<void> = Promise.resolve();
  #lastError = '';

  constructor(deps: BridgeDeps) {
    this.#deps = deps;
    this.#blocks = readBlocks(deps.registers);
    this.#mqtt = new MqttMeter({
      broker: deps.broker,
      deviceId: deps.deviceId,
      info: infoOf(deps.deviceId, deps.pollMs),
      state: stateOf,
      answer: (command) => this.#answer(command),
      now: deps.now,
      log: deps.log,
      // [MC-6.7] a live poll on every (re)connection: the service gets present readings at once.
      onConnected: () => {
        if (!this.#stopped) void this.#poll().catch(() => undefined);
      },
      onFatal: deps.onFatal,
    });
  }

  start(): void {
    this.#loop = this.#tick();
  }

  async close(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#loop;
    await this.#deps.port.close();
    await this.#mqtt.close();
  }

  /** One poll, then the next one scheduled: a period later, or after the backoff while the port is gone. */
  async #tick(): Promise<void> {
    if (this.#stopped) return;
    const started = this.#deps.now();
    let delay = this.#deps.pollMs;
    try {
      const gone = await this.#poll();
      if (gone) {
        delay = this.#backoffMs;
        this.#backoffMs = Math.min(this.#backoffMs * 2, REOPEN_BACKOFF_MS.max);
      } else {
        this.#backoffMs = REOPEN_BACKOFF_MS.first;
        delay = Math.max(0, this.#deps.pollMs - (this.#deps.now() - started));
      }
    } catch (err) {
      // A bug must not end the bridge: log it and keep polling.
      this.#deps.log('error', `${this.#deps.deviceId}: modbus: poll crashed: ${(err as Error).stack ?? err}`);
    }
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#loop = this.#tick();
    }, delay);
  }

  /** Polls once and publishes what it learnt; true when the port is gone. */
  async #poll(): Promise<boolean> {
    const { deviceId, log } = this.#deps;
    const read = await this.#readSample();
    if (read.ok) {
      this.#setLink('success', ''); // online first, so the sample goes straight out
      const { energy } = read.sample;
      if (energy < this.#lastEnergy) {
        // [MC-7.5] energy never decreases: a meter reset or a bad frame; keep the sample out of history.
        log(
          'warn',
          `${deviceId}: modbus: energy fell from ${this.#lastEnergy} to ${energy} kWh; sample dropped`,
        );
      } else {
        this.#lastEnergy = energy;
        this.#mqtt.addSample(read.sample);
      }
      return false;
    }
    this.#setLink(read.kind, read.message);
    return read.kind === 'port_gone';
  }

  async #readSample(): Promise<
    { ok: true; sample: Sample } | { ok: false; kind: 'failure' | 'port_gone'; message: string }
  > {
    const result = await this.#deps.port.read(this.#blocks);
    if (!result.ok) return result;
    const decoded = decodeReadings(this.#deps.registers, result.words);
    if (!decoded.ok) return { ok: false, kind: 'failure', message: decoded.error };
    return { ok: true, sample: sampleOf(decoded.values, this.#deps.now()) };
  }

  #setLink(outcome: 'success' | 'failure' | 'port_gone', message: string): void {
    const { deviceId, log, where } = this.#deps;
    const before = this.#link;
    const after = nextLink(before, outcome);
    this.#link = after;
    if (outcome === 'success') {
      if (!before.online) log('info', `${deviceId}: modbus: ${where} answering: online`);
      this.#lastError = '';
    } else if (message !== this.#lastError || before.online !== after.online) {
      // Log each new kind of failure once, not every poll of a meter that stays silent.
      const state = after.online ? `${after.failures} failed in a row` : 'offline';
      log('warn', `${deviceId}: modbus: ${where}: ${message} (${state})`);
      this.#lastError = message;
    }
    this.#mqtt.setOnline(after.online, `modbus: ${message}`); // [MC-6.8] why, when it went offline
  }

  /** [MC-8.3, MC-8.6] `read` polls the meter live; every other op is refused as `unsupported`. */
  async #answer(command: MeterCommand): Promise<WireReply> {
    const plan = planCommand(command);
    if (plan.kind === 'reply') return plan.reply;
    const read = await this.#readSample();
    if (!read.ok) {
      // [MC-8.7] `busy`: cannot now, may later.
      return {
        ok: false,
        error: { code: 'busy', message: `SDM120 did not answer on Modbus: ${read.message}` },
      };
    }
    return { ok: true, data: { readings: read.sample, state: stateOf(read.sample.ts) } };
  }
}
