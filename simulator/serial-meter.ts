// A virtual meter on a serial line ("virtual firmware"): the pure meter state machine (./meter) driven by a
// clock, speaking the serial line protocol (firmware-protocol/serial/PROTOCOL.md) instead of MQTT. The same
// idea as virtual-meter.ts; all behaviour lives in `step`, this file only moves events in and effects out.

import type { MeterCommand, Sample } from '../firmware-protocol/mqtt/vocabulary.ts';
import type { CmdFrame, Frame, HelloFrame } from '../firmware-protocol/serial/frames.ts';
import {
  DEFAULT_KEEPALIVE_S,
  PROTOCOL_VERSION,
  SILENCE_PERIODS,
} from '../firmware-protocol/serial/frames.ts';
import { LinePort } from '../src/serial/line-port.ts';
import type { Logger } from '../src/serial/link.ts';
import { PROPERTY_CATALOGUE, reportedState, step } from './meter/index.ts';
import type { MeterEvent, MeterState } from './meter/types.ts';

/** [SP-5.6] Samples held until a PONG confirms them (a day at 1 s), oldest dropped first. */
const HELD_LIMIT = 86_400;

export interface SerialMeterOptions {
  state: MeterState;
  serial: string;
  baud: number;
  now: () => number;
  log: Logger;
  keepaliveS?: number;
}

export class SerialMeter {
  #state: MeterState;
  readonly #opts: SerialMeterOptions;
  readonly #port: LinePort;
  readonly #keepaliveS: number;
  /** [SP-5.6] Every sample no PONG has confirmed yet, oldest first; the first `#written` are on the wire. */
  #held: Sample[] = [];
  #written = 0;
  /** How many held samples the PONG to the oldest unanswered PING confirms. */
  #mark: number | null = null;
  /** [SP-5.8] A bridge answers: false once PONGs have stopped, until the next IDENT. */
  #present = true;
  #lastHeard = 0;
  #tickTimer: NodeJS.Timeout | null = null;
  #pingTimer: NodeJS.Timeout | null = null;
  /** The op of each command in flight through `step`, to name it in the ACK [SP-4.6]. */
  readonly #ops = new Map<string, { seq: number; op: MeterCommand['op'] }>();

  constructor(opts: SerialMeterOptions) {
    this.#opts = opts;
    this.#state = opts.state;
    this.#keepaliveS = opts.keepaliveS ?? DEFAULT_KEEPALIVE_S;
    this.#port = new LinePort({
      serial: opts.serial,
      baud: opts.baud,
      log: opts.log,
      onFrame: (frame) => this.#onFrame(frame),
      onOpen: () => this.#identify(), // [SP-5.1]
      onClose: () => undefined,
      onError: (error) =>
        opts.log('warn', `bridge line refused: ${error.code} [${error.rule}] ${error.message}`),
    });
  }

  get state(): MeterState {
    return this.#state;
  }

  start(): void {
    this.#port.link.start();
    this.#scheduleTick();
    this.#lastHeard = this.#opts.now();
    this.#pingTimer = setInterval(() => this.#ping(), this.#keepaliveS * 1000);
  }

  /** [SP-5.3] PING; [SP-5.8] after 3 periods without a PONG, stop writing TEL and hold it. */
  #ping(): void {
    if (this.#opts.now() - this.#lastHeard > SILENCE_PERIODS * this.#keepaliveS * 1000) this.#present = false;
    if (this.#port.send({ type: 'PING' }) && this.#mark === null) this.#mark = this.#written;
  }

  async stop(): Promise<void> {
    if (this.#tickTimer) clearTimeout(this.#tickTimer);
    if (this.#pingTimer) clearInterval(this.#pingTimer);
    this.#port.send({ type: 'BYE' });
    await this.#port.link.drain();
    await this.#port.link.close();
  }

  #onFrame(frame: Frame): void {
    this.#lastHeard = this.#opts.now();
    switch (frame.type) {
      case 'IDENT':
        this.#identify();
        return;
      case 'CMD':
        this.#onCommand(frame);
        return;
      case 'PONG':
        // [SP-5.6] The bridge took every line before the PING this answers.
        if (this.#mark !== null) {
          this.#held.splice(0, this.#mark);
          this.#written -= this.#mark;
          this.#mark = null;
        }
        this.#present = true;
        return;
      case 'ERR':
        this.#opts.log('warn', `bridge refused a line: ${frame.code}: ${frame.msg}`); // [SP-6.4]
        return;
      default:
        this.#port.refuse('rejected', 'SP-1.3', `${frame.type} goes meter to bridge, not back`);
    }
  }

  #onCommand(frame: CmdFrame): void {
    const { type: _t, seq, id, ...wire } = frame;
    const command = (
      wire.op === 'recharge'
        ? { op: 'recharge', amount: wire.amount, transactionId: wire.transaction_id }
        : wire
    ) as MeterCommand;
    this.#ops.set(id, { seq, op: command.op });
    this.#apply({ type: 'command', id, command });
  }

  /** [SP-5.1] HELLO, STATE, then every sample no PONG has confirmed, oldest first [SP-5.6]. */
  #identify(): void {
    const s = this.#state;
    const hello: HelloFrame = {
      type: 'HELLO',
      proto: PROTOCOL_VERSION,
      device_id: s.deviceId,
      model: s.model,
      firmware: s.firmware,
      has_relay: true,
      telemetry_period_s: s.telemetryPeriodMs / 1000,
      keepalive_s: this.#keepaliveS,
      properties: [...PROPERTY_CATALOGUE[s.model]],
    };
    if (!this.#port.send(hello)) return;
    this.#port.send({ type: 'STATE', ...reportedState(s, this.#opts.now()) });
    this.#present = true;
    this.#mark = null; // a PONG to a PING sent before these lines confirms none of them
    this.#written = 0;
    this.#writeHeld();
  }

  /** Writes the held samples not yet on the wire, in order, while a bridge answers [SP-5.8]. */
  #writeHeld(): void {
    if (!this.#present) return;
    while (this.#written < this.#held.length) {
      if (!this.#port.send({ type: 'TEL', ...this.#held[this.#written]! })) return;
      this.#written++;
    }
  }

  #apply(event: MeterEvent): void {
    const { state, effects } = step(this.#state, event, this.#opts.now());
    this.#state = state;
    for (const effect of effects) {
      switch (effect.type) {
        case 'telemetry':
          this.#hold(effect.sample);
          this.#writeHeld();
          break;
        case 'state':
          this.#port.send({ type: 'STATE', ...effect.state });
          break;
        case 'reply': {
          const cmd = this.#ops.get(effect.id);
          if (!cmd) break;
          this.#ops.delete(effect.id);
          const { reply } = effect;
          if (reply.ok) {
            const data = reply.data === undefined ? {} : { data: reply.data };
            this.#port.send({ type: 'ACK', seq: cmd.seq, id: effect.id, op: cmd.op, ...data } as Frame);
          } else {
            const msg = reply.error.message.slice(0, 200);
            this.#port.send({ type: 'NAK', seq: cmd.seq, id: effect.id, code: reply.error.code, msg });
          }
        }
      }
    }
  }

  #hold(sample: Sample): void {
    this.#held.push(sample);
    if (this.#held.length <= HELD_LIMIT) return;
    this.#held.shift();
    if (this.#written > 0) this.#written--;
    if (this.#mark !== null && this.#mark > 0) this.#mark--;
  }

  /** Wakes at each telemetry boundary [M-2]. */
  #scheduleTick(): void {
    const wait = Math.max(5, this.#state.nextTelemetryTs - this.#opts.now());
    this.#tickTimer = setTimeout(() => {
      this.#apply({ type: 'advance' });
      this.#scheduleTick();
    }, wait);
  }
}
