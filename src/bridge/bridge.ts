// `meterstack bridge`: one serial meter <-> the MQTT contract [SP-7]. The serial link (link.ts) and the
// MQTT session (mqtt-session.ts) each reconnect on their own; this file keeps the meter's picture (who it
// is, its state, whether the link is up) and moves frames across. Rule numbers: firmware-protocol/serial/
// PROTOCOL.md (SP-x.y) and firmware-protocol/mqtt/CONTRACT.md (MC-x.y).

import { commandFromWire, commandToWire, replyToWire } from '../../firmware-protocol/mqtt/codec.ts';
import type { InfoPayload, SamplePayload, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import type { Frame } from '../../firmware-protocol/serial/frames.ts';
import { DEFAULT_KEEPALIVE_S, SILENCE_PERIODS } from '../../firmware-protocol/serial/frames.ts';
import { LinePort } from './line-port.ts';
import type { Logger } from './link.ts';
import { type BrokerOptions, MqttSession } from './mqtt-session.ts';
import type { Recorder } from './recorder.ts';
import { cmdFrame, helloToInfo, replyOf, stateToPayload, telToSample } from './translate.ts';

const MAX_SAMPLES_PER_MESSAGE = 1000; // [MC-7.2]
const OUTBOX_LIMIT = 100_000; // [SP-7.4] samples kept while the broker is away
const MAX_IN_FLIGHT = 8;
const COMMAND_TIMEOUT_MS = 10_000; // [SP-5.5]
const IDENT_INTERVAL_MS = 1_000; // [SP-5.2]

export interface BridgeOptions {
  serial: string;
  baud: number;
  broker: BrokerOptions;
  log: Logger;
  recorder?: Recorder;
  /** Grace before the link counts as silent, overriding 3 × keepalive_s [SP-5.4] (tests). */
  silenceMs?: number;
}

export interface BridgeStats {
  linesIn: number;
  linesOut: number;
  errors: number;
  samplesPublished: number;
}

export class Bridge {
  readonly #opts: BridgeOptions;
  readonly #port: LinePort;
  readonly #mqtt: MqttSession;
  readonly stats: BridgeStats = { linesIn: 0, linesOut: 0, errors: 0, samplesPublished: 0 };
  #hello: { info: InfoPayload; keepaliveS: number } | null = null;
  #state: StatePayload | null = null;
  #up = false;
  #outbox: SamplePayload[] = [];
  #inFlight = 0;
  #seq = 0;
  readonly #pending = new Map<number, NodeJS.Timeout>();
  #silence: NodeJS.Timeout | null = null;
  #lastIdent = 0;
  #flushSoon = false;

  constructor(opts: BridgeOptions) {
    this.#opts = opts;
    const { recorder } = opts;
    this.#port = new LinePort({
      serial: opts.serial,
      baud: opts.baud,
      log: opts.log,
      recorder,
      onFrame: (frame) => {
        this.stats.linesIn++;
        this.#onFrame(frame);
      },
      onError: (error) => {
        this.stats.linesIn++;
        this.stats.errors++;
        opts.log('warn', `meter line refused: ${error.code} [${error.rule}] ${error.message}`);
      },
      onSent: () => this.stats.linesOut++,
      onOpen: () => {
        recorder?.write({ dir: 'link', event: 'open' });
        this.#sendIdent(); // [SP-5.2]
      },
      onClose: (reason) => {
        recorder?.write({ dir: 'link', event: 'close', reason });
        this.#down(`serial port closed (${reason})`);
      },
    });
    this.#mqtt = new MqttSession({
      broker: opts.broker,
      log: opts.log,
      onReady: () => this.#announce(),
      onCommand: (payload) => this.#onCommand(payload),
      onPublish: recorder ? (topic, payload) => recorder.write({ dir: 'mqtt', topic, payload }) : undefined,
    });
  }

  /** The meter is identified and announced online over MQTT. */
  get online(): boolean {
    return this.#up && this.#mqtt.ready;
  }

  start(): void {
    this.#opts.recorder?.write({
      dir: 'link',
      event: 'start',
      device_id: this.#opts.broker.username,
      serial: this.#opts.serial,
      baud: this.#opts.baud,
      format: 'meterstack-bridge-recording/1',
    });
    this.#opts.log(
      'info',
      `bridge: serial ${this.#opts.serial} <-> ${this.#opts.broker.url} as ${this.#opts.broker.username}`,
    );
    this.#port.link.start();
  }

  async close(): Promise<void> {
    this.#clearSilence();
    for (const timer of this.#pending.values()) clearTimeout(timer);
    await this.#port.link.close();
    await this.#mqtt.close();
    await this.#opts.recorder?.close();
  }

  #onFrame(frame: Frame): void {
    this.#touch();
    switch (frame.type) {
      case 'HELLO':
        this.#onHello(frame);
        return;
      case 'STATE':
        this.#onState(frame);
        return;
      case 'TEL':
        this.#onTel(frame);
        return;
      case 'ACK':
      case 'NAK':
        this.#onReply(frame);
        return;
      case 'PING':
        this.#port.send({ type: 'PONG' }); // [SP-5.3]
        if (!this.#hello) this.#sendIdent();
        return;
      case 'LOG':
        this.#opts.log(frame.level === 'debug' ? 'info' : frame.level, `meter: ${frame.msg}`);
        return;
      case 'BYE':
        this.#down('meter said BYE'); // [SP-4.12]
        return;
      case 'ERR':
        this.#opts.log('warn', `meter refused a line: ${frame.code}: ${frame.msg}`);
        return; // [SP-6.4] never answered
      default:
        this.#port.refuse('rejected', 'SP-1.3', `${frame.type} goes bridge to meter, not back`);
    }
  }

  #onHello(frame: Extract<Frame, { type: 'HELLO' }>): void {
    const deviceId = this.#opts.broker.username;
    if (frame.device_id !== deviceId) {
      this.#port.refuse('wrong_device', 'SP-7.2', `this bridge serves ${deviceId}, not ${frame.device_id}`);
      this.#down(`HELLO from ${frame.device_id}`);
      return;
    }
    const info = helloToInfo(frame);
    if (!info.ok) {
      this.#port.refuse('rejected', info.error.rule, info.error.message);
      return;
    }
    const changed = JSON.stringify(info.value) !== JSON.stringify(this.#hello?.info);
    this.#hello = { info: info.value, keepaliveS: frame.keepalive_s };
    this.#opts.log(
      'info',
      `meter ${deviceId}: HELLO ${frame.model}, firmware ${frame.firmware}, keep-alive ${frame.keepalive_s} s`,
    );
    if (this.#up && changed && this.#mqtt.ready) this.#mqtt.publish('info', info.value); // [MC-4.1]
    this.#touch();
  }

  #onState(frame: Extract<Frame, { type: 'STATE' }>): void {
    if (!this.#hello) {
      this.#sendIdent();
      return;
    }
    const state = stateToPayload(frame);
    if (!state.ok) {
      this.#port.refuse('rejected', state.error.rule, state.error.message);
      return;
    }
    this.#state = state.value;
    if (this.#up) {
      if (this.#mqtt.ready) this.#mqtt.publish('state', state.value);
    } else {
      this.#up = true;
      this.#opts.recorder?.write({ dir: 'link', event: 'up' });
      this.#opts.log('info', `meter ${this.#opts.broker.username}: link up`);
      this.#announce();
    }
  }

  #onTel(frame: Extract<Frame, { type: 'TEL' }>): void {
    if (!this.#hello) this.#sendIdent();
    const sample = telToSample(frame);
    if (!sample.ok) {
      this.#port.refuse('rejected', sample.error.rule, sample.error.message);
      return;
    }
    this.#outbox.push(sample.value);
    if (this.#outbox.length > OUTBOX_LIMIT) this.#outbox.splice(0, this.#outbox.length - OUTBOX_LIMIT);
    // Lines that arrive together go out as one batch.
    if (!this.#flushSoon) {
      this.#flushSoon = true;
      setImmediate(() => {
        this.#flushSoon = false;
        this.#flush();
      });
    }
  }

  #onReply(frame: Extract<Frame, { type: 'ACK' | 'NAK' }>): void {
    clearTimeout(this.#pending.get(frame.seq));
    this.#pending.delete(frame.seq);
    const reply = replyOf(frame);
    if (!reply.ok) {
      this.#port.refuse('rejected', reply.error.rule, reply.error.message);
      return;
    }
    if (this.#mqtt.ready) this.#mqtt.publish('reply', reply.value);
  }

  /** [SP-7.3] An MQTT cmd becomes a CMD line, or is answered here when it cannot be. */
  #onCommand(payload: Buffer): void {
    const parsed = commandFromWire(payload);
    if (!parsed.ok) {
      this.#opts.log('warn', `cmd refused: [${parsed.error.rule}] ${parsed.error.message}`);
      if (parsed.reply) this.#mqtt.publish('reply', parsed.reply); // [MC-9.1]; [MC-9.2] nothing
      return;
    }
    if (!this.#up) {
      const reply = replyToWire(parsed.id, {
        ok: false,
        error: { code: 'busy', message: 'meter link down' },
      });
      this.#mqtt.publish('reply', reply);
      return;
    }
    this.#seq = (this.#seq % 65_535) + 1; // [SP-5.5]
    const seq = this.#seq;
    this.#port.send(cmdFrame(seq, commandToWire(parsed.id, parsed.command)));
    clearTimeout(this.#pending.get(seq));
    this.#pending.set(
      seq,
      setTimeout(() => {
        this.#pending.delete(seq);
        this.#opts.log('warn', `CMD seq=${seq} id=${parsed.id}: no ACK/NAK within ${COMMAND_TIMEOUT_MS} ms`);
      }, COMMAND_TIMEOUT_MS),
    );
  }

  /** [MC-6.3] info, state, online, then buffered telemetry: once both sides are ready. */
  #announce(): void {
    if (!this.#up || !this.#hello || !this.#state || !this.#mqtt.ready) return;
    this.#mqtt.publish('info', this.#hello.info);
    this.#mqtt.publish('state', this.#state);
    this.#mqtt.publish('availability', { v: 1, online: true, ts: Date.now() });
    this.#opts.log('info', `meter ${this.#opts.broker.username}: online`);
    this.#flush();
  }

  #flush(): void {
    if (!this.online) return;
    while (this.#outbox.length > 0 && this.#inFlight < MAX_IN_FLIGHT) {
      const batch = this.#outbox.splice(0, MAX_SAMPLES_PER_MESSAGE);
      this.#inFlight++;
      try {
        this.#mqtt.publish('telemetry', { v: 1, samples: batch }, (err) => {
          this.#inFlight--;
          if (err) this.#outbox.unshift(...batch);
          else this.stats.samplesPublished += batch.length;
          this.#flush();
        });
      } catch (err) {
        // [MC-7.3] a batch the contract refuses (ts not ascending) is dropped whole, not retried forever.
        this.#inFlight--;
        this.#opts.log('warn', `telemetry batch dropped: ${(err as Error).message}`);
      }
    }
  }

  /** [SP-5.4] Link down: offline over MQTT, and a fresh HELLO needed. */
  #down(reason: string): void {
    this.#clearSilence();
    this.#hello = null;
    if (!this.#up) return;
    this.#up = false;
    this.#opts.recorder?.write({ dir: 'link', event: 'down', reason });
    this.#opts.log('warn', `meter ${this.#opts.broker.username}: link down: ${reason}; offline`);
    if (this.#mqtt.ready) this.#mqtt.publish('availability', { v: 1, online: false, ts: Date.now() });
  }

  #touch(): void {
    this.#clearSilence();
    const ms =
      this.#opts.silenceMs ?? SILENCE_PERIODS * (this.#hello?.keepaliveS ?? DEFAULT_KEEPALIVE_S) * 1000;
    this.#silence = setTimeout(() => this.#down(`silent for ${ms} ms`), ms);
  }

  #clearSilence(): void {
    if (this.#silence) clearTimeout(this.#silence);
    this.#silence = null;
  }

  #sendIdent(): void {
    const now = Date.now();
    if (now - this.#lastIdent < IDENT_INTERVAL_MS) return;
    this.#lastIdent = now;
    this.#port.send({ type: 'IDENT' });
  }
}
