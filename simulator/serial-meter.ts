// A virtual meter on a serial line ("virtual firmware"): the pure meter state machine (./meter) driven by a
// clock, speaking the serial line protocol (firmware-protocol/serial/PROTOCOL.md) instead of MQTT. The same
// idea as virtual-meter.ts; all behaviour lives in `step`, this file only moves events in and effects out.

import type { CmdFrame, Frame, HelloFrame } from '../firmware-protocol/serial/frames.ts';
import { DEFAULT_KEEPALIVE_S, PROTOCOL_VERSION } from '../firmware-protocol/serial/frames.ts';
import { LinePort } from '../src/bridge/line-port.ts';
import type { Logger } from '../src/bridge/link.ts';
import { PROPERTY_CATALOGUE, reportedState, step } from './meter/index.ts';
import type { MeterCommand, MeterEvent, MeterState, Sample } from './meter/types.ts';

/** [SP-5.6] Samples kept while the port is closed (a day at 1 s), oldest dropped first. */
const OUTBOX_LIMIT = 86_400;

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
  #outbox: Sample[] = [];
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
    this.#pingTimer = setInterval(() => this.#port.send({ type: 'PING' }), this.#keepaliveS * 1000);
  }

  async stop(): Promise<void> {
    if (this.#tickTimer) clearTimeout(this.#tickTimer);
    if (this.#pingTimer) clearInterval(this.#pingTimer);
    this.#port.send({ type: 'BYE' });
    await this.#port.link.drain();
    await this.#port.link.close();
  }

  #onFrame(frame: Frame): void {
    switch (frame.type) {
      case 'IDENT':
        this.#identify();
        return;
      case 'CMD':
        this.#onCommand(frame);
        return;
      case 'PONG':
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

  /** [SP-5.1] HELLO, STATE, then what was kept while the port was closed [SP-5.6]. */
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
    const kept = this.#outbox.splice(0);
    for (const sample of kept) this.#port.send({ type: 'TEL', ...sample });
  }

  #apply(event: MeterEvent): void {
    const { state, effects } = step(this.#state, event, this.#opts.now());
    this.#state = state;
    for (const effect of effects) {
      switch (effect.type) {
        case 'telemetry':
          if (!this.#port.send({ type: 'TEL', ...effect.sample })) this.#keep(effect.sample);
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

  #keep(sample: Sample): void {
    this.#outbox.push(sample);
    if (this.#outbox.length > OUTBOX_LIMIT) this.#outbox.shift();
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
