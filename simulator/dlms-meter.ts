// A virtual meter that speaks DLMS/COSEM: the pure meter (./meter) driven by a real clock, as
// serial-meter.ts drives it, plus what the COSEM application server needs from it (its bounded history
// of samples, the counters DLMS keeps that the contract does not [CO-6.7]) and the server itself, one
// session per association. The links (HDLC on a serial port, the wrapper over TCP) live beside it in
// dlms-hdlc.ts and dlms-tcp.ts and hand it whole APDUs.

import { encodeApdu } from '../firmware-protocol/dlms/apdu/apdu.ts';
import {
  advanceCounters,
  type CounterCarry,
  type MeterCounters,
  ZERO_COUNTERS,
} from '../firmware-protocol/dlms/cosem/values.ts';
import { answerCommand, type Session, serve } from '../firmware-protocol/dlms/server/server.ts';
import {
  DEFAULT_SERVER_CONFIG,
  type MeterView,
  type ServerConfig,
} from '../firmware-protocol/dlms/server/view.ts';
import type { CommandReply, MeterCommand, Sample } from '../firmware-protocol/mqtt/vocabulary.ts';
import type { Logger } from '../src/serial/link.ts';
import { reportedState, step } from './meter/index.ts';
import type { MeterEvent, MeterState } from './meter/types.ts';

/** [AS-5.1] Samples kept for the profiles by default: 7 days at the default 60 s period. */
export const DEFAULT_HISTORY_LIMIT = 10_080;

export interface DlmsMeterOptions {
  state: MeterState;
  now: () => number;
  log: Logger;
  server?: Partial<ServerConfig>;
  historyLimit?: number;
}

export interface Handled {
  session: Session;
  apdu: Uint8Array;
}

export class DlmsMeter {
  #state: MeterState;
  readonly #opts: DlmsMeterOptions;
  readonly config: ServerConfig;
  readonly #limit: number;
  /** [AS-5.1] The meter's own samples, oldest first, and the cumulative VAh at each. */
  #history: Sample[] = [];
  #vah: number[] = [];
  #counters: MeterCounters = ZERO_COUNTERS;
  #carry: CounterCarry = { dvaMs: 0, ms: 0 };
  #commands = 0;
  #tick: NodeJS.Timeout | null = null;
  /** Requests refused (a data-access-result, an exception, a rejected AARQ), for the log and tests. */
  refusals = 0;

  constructor(opts: DlmsMeterOptions) {
    this.#opts = opts;
    this.#state = opts.state;
    this.config = { ...DEFAULT_SERVER_CONFIG, ...opts.server };
    this.#limit = opts.historyLimit ?? DEFAULT_HISTORY_LIMIT;
    if (!Number.isInteger(this.#limit) || this.#limit < 2)
      throw new TypeError('DlmsMeter: historyLimit must be an integer ≥ 2');
  }

  get state(): MeterState {
    return this.#state;
  }

  /** Takes the meter's first sample [M-17] and wakes at each telemetry boundary [M-2]. */
  start(): void {
    this.#apply({ type: 'connect' });
    this.#schedule();
  }

  stop(): void {
    if (this.#tick) clearTimeout(this.#tick);
    this.#tick = null;
  }

  /**
   * [AS-1.2] What the server answers from, now. The meter first lives up to this instant, as a real one
   * does between its telemetry boundaries: a prepaid cut-off (or a balance) read between two boundaries
   * is the present one, not the last boundary's, up to a whole period (60 s by default) late.
   */
  view(): MeterView {
    this.#apply({ type: 'advance' });
    const now = this.#opts.now();
    const s = this.#state;
    const sample = this.#history[this.#history.length - 1]!;
    return {
      now,
      snapshot: {
        sample,
        state: reportedState(s, now),
        info: {
          device_id: s.deviceId,
          firmware: s.firmware,
          has_relay: true,
          model: s.model,
          serial: s.serial,
        },
        counters: this.#counters,
      },
      history: this.#history,
      vahAtStart: this.#vah[0] ?? 0,
      historyLimit: this.#limit,
    };
  }

  /** [AS-1.1, AS-7.2] One request APDU of a session: the response, applying any command to the meter. */
  handle(session: Session, clientSap: number, apdu: Uint8Array): Handled {
    let r: ReturnType<typeof serve>;
    try {
      r = serve(this.config, session, clientSap, apdu, this.view());
    } catch (err) {
      // [AS-1.3] A bug of ours is never the client's crash: logged, answered other-reason.
      this.refusals++;
      this.#opts.log('error', `dlms: server failed on an APDU: ${(err as Error).stack ?? err}`);
      return { session, apdu: encodeApdu({ type: 'exception-response', stateError: 1, serviceError: 3 }) };
    }
    if (r.kind === 'reply') {
      if (r.refusal !== undefined) {
        this.refusals++;
        this.#opts.log('debug', `dlms: refused from client ${clientSap}: ${r.refusal}`);
      }
      return { session: r.session, apdu: r.apdu };
    }
    const reply = this.command(r.command);
    if (!reply.ok) {
      this.refusals++;
      this.#opts.log('info', `dlms: meter refused ${r.command.op}: ${reply.error.message}`);
    } else this.#opts.log('info', `dlms: client ${clientSap} ${r.command.op}`);
    return { session: r.session, apdu: answerCommand(r.pending, reply) };
  }

  /** A contract command applied through the meter's own `step`; its reply. */
  command(command: MeterCommand): CommandReply {
    const id = `dlms-${++this.#commands}`;
    let reply: CommandReply = { ok: false, error: { code: 'busy', message: 'no reply from the meter' } };
    for (const e of this.#apply({ type: 'command', id, command })) {
      if (e.type === 'reply' && e.id === id) reply = e.reply;
    }
    return reply;
  }

  #apply(event: MeterEvent) {
    const now = this.#opts.now();
    const { state, effects } = step(this.#state, event, now);
    this.#state = state;
    for (const e of effects) if (e.type === 'telemetry') this.#keep(e.sample, now);
    return effects;
  }

  /** [AS-5.1, CO-6.7] Keeps the sample (oldest dropped past the limit) and advances the counters. */
  #keep(sample: Sample, now: number): void {
    const prev = this.#history[this.#history.length - 1];
    if (prev !== undefined) {
      const closed = reportedState(this.#state, now).relay_state;
      const next = advanceCounters(this.#counters, prev, sample, closed, this.#carry);
      this.#counters = next.counters;
      this.#carry = next.carry;
    }
    this.#history.push(sample);
    this.#vah.push(this.#counters.apparentEnergyVah);
    if (this.#history.length > this.#limit) {
      this.#history.shift();
      this.#vah.shift();
    }
  }

  #schedule(): void {
    const wait = Math.max(5, this.#state.nextTelemetryTs - this.#opts.now());
    this.#tick = setTimeout(() => {
      this.#apply({ type: 'advance' });
      this.#schedule();
    }, wait);
  }
}
