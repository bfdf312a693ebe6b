// `meterstack bridge`: one serial meter <-> the MQTT contract [SP-7]. The serial link (link.ts) and the
// meter link (src/meter-link, the contract's meter side) each reconnect on their own; this file keeps the
// meter's picture (who it is, its state, whether the link is up) and moves frames across. Rule numbers: firmware-protocol/serial/
// PROTOCOL.md (SP-x.y) and firmware-protocol/mqtt/CONTRACT.md (MC-x.y).

import { commandToWire } from '../../firmware-protocol/mqtt/codec.ts';
import type { InfoPayload, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import type { ProtocolError } from '../../firmware-protocol/serial/codec.ts';
import type { Frame } from '../../firmware-protocol/serial/frames.ts';
import { DEFAULT_KEEPALIVE_S, SILENCE_PERIODS } from '../../firmware-protocol/serial/frames.ts';
import { commandLineProblem } from '../../firmware-protocol/serial/sizes.ts';
import { type BackoffOptions, BRIDGE_BACKOFF, MeterLink, SERVICE_WAIT_MS } from '../meter-link/index.ts';
import { LinePort } from '../serial/line-port.ts';
import type { Logger } from '../serial/link.ts';
import type { Recorder } from '../serial/recorder.ts';
import { CommandTable } from './commands.ts';
import { connectReadCmd, connectSampleOf } from './connect-reading.ts';
import { type BrokerOptions, mqttLog } from './mqtt-log.ts';
import { SampleOrder } from './sample-order.ts';
import { cmdFrame, helloToInfo, replyOf, stateToPayload, telToSample } from './translate.ts';

/** A decoded cmd, as commandFromWire gives it. */
type Command = Parameters<typeof commandToWire>[1];

/** [SP-5.2] At most one IDENT a second; while the link is not up, one every 2 s at least. */
const IDENT_MIN_GAP_MS = 1_000;
export const IDENT_RETRY_MS = 2_000;

export interface BridgeOptions {
  serial: string;
  baud: number;
  broker: BrokerOptions;
  log: Logger;
  recorder?: Recorder;
  /** Grace before the link counts as silent, overriding 3 × keepalive_s [SP-5.4] (tests). */
  silenceMs?: number;
  /** The bridge's clock, sent on IDENT and PONG [SP-5.9]; default Date.now. */
  now?: () => number;
  /** [SP-7.5] The broker refused the login for good; the command line exits 2. */
  onFatal?: (reason: string) => void;
  /** Reconnection waits (default 1 s doubling to 30 s, decision 171; shorter in tests). */
  reconnect?: BackoffOptions;
  /** [MC-12.2] How long to wait for the service announcement after connecting (default 3 s). */
  awaitServiceMs?: number;
}

export interface BridgeStats {
  linesIn: number;
  linesOut: number;
  /** Lines refused: unusable, or refused by the contract or the session rules. */
  errors: number;
  samplesPublished: number;
  /** [SP-6.6] TEL lines repeating a sample already accepted, dropped without an answer. */
  repeats: number;
  /** [SP-5.10] ACK/NAK lines that answer no CMD in flight (wrong seq, id or op). */
  unmatchedReplies: number;
  /** [SP-4.13] Commands answered by the bridge because they cannot be framed. */
  unframeable: number;
}

export class Bridge {
  readonly #opts: BridgeOptions;
  readonly #port: LinePort;
  readonly #mqtt: MeterLink;
  readonly #stats: Omit<BridgeStats, 'samplesPublished'> = {
    linesIn: 0,
    linesOut: 0,
    errors: 0,
    repeats: 0,
    unmatchedReplies: 0,
    unframeable: 0,
  };
  readonly #now: () => number;
  readonly #commands: CommandTable;
  readonly #order = new SampleOrder();
  #hello: { info: InfoPayload; keepaliveS: number } | null = null;
  #state: StatePayload | null = null;
  #up = false;
  #silence: NodeJS.Timeout | null = null;
  #identRetry: NodeJS.Timeout | null = null;
  #lastIdent = Number.NEGATIVE_INFINITY;

  constructor(opts: BridgeOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
    const { recorder } = opts;
    this.#commands = new CommandTable({
      onTimeout: ({ seq, id, from }, ms) =>
        opts.log(
          'warn',
          `CMD seq=${seq} id=${id}: no ACK/NAK within ${ms} ms [SP-5.5]` +
            (from === 'bridge' ? '; no connect sample this time [SP-5.13]' : ''),
        ),
    });
    this.#port = new LinePort({
      serial: opts.serial,
      baud: opts.baud,
      log: opts.log,
      recorder,
      onFrame: (frame) => {
        this.#stats.linesIn++;
        this.#onFrame(frame);
      },
      onError: (error) => {
        this.#stats.linesIn++;
        this.#onUnusable(error);
      },
      onSent: () => this.#stats.linesOut++,
      onOpen: () => {
        recorder?.write({ dir: 'link', event: 'open' });
        this.#sendIdent(); // [SP-5.2]
      },
      onClose: (reason) => {
        recorder?.write({ dir: 'link', event: 'close', reason });
        this.#down(`serial port closed (${reason})`);
      },
    });
    const { url, username, password } = opts.broker;
    this.#mqtt = new MeterLink({
      url,
      deviceId: username,
      password,
      connectTimeout: 5_000,
      backoff: opts.reconnect ?? BRIDGE_BACKOFF,
      awaitServiceMs: opts.awaitServiceMs ?? SERVICE_WAIT_MS,
      now: this.#now,
      // [MC-6.3] announced once both sides are ready: the meter identified (HELLO, STATE) and MQTT up.
      info: () => (this.#up && this.#state ? (this.#hello?.info ?? null) : null),
      state: () => this.#state,
      answer: (id, command) => {
        const refusal = this.#dispatch(id, command); // [SP-7.3] else the meter's ACK/NAK answers
        return refusal ? { ok: false, error: refusal } : undefined;
      },
      onAnnounced: () => this.#askConnectReading(),
      onPublish: recorder ? (topic, payload) => recorder.write({ dir: 'mqtt', topic, payload }) : undefined,
      onEvent: mqttLog(opts.broker, opts.log, {
        online: () => opts.log('info', `meter ${username}: online`),
        refused: (reason) => opts.onFatal?.(reason),
      }),
    });
    void this.#mqtt.connect();
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
    // [SP-5.7] While the port is open and the link not up, ask again until a HELLO and a STATE come.
    this.#identRetry = setInterval(() => {
      if (!this.#up && this.#port.link.isOpen) this.#sendIdent();
    }, IDENT_RETRY_MS);
  }

  get stats(): BridgeStats {
    return { ...this.#stats, samplesPublished: this.#mqtt.published };
  }

  /** Handlers that threw or frames that could not be written: bugs, each logged as an error. */
  get faults(): number {
    return this.#port.faults;
  }

  async close(): Promise<void> {
    this.#clearSilence();
    if (this.#identRetry) clearInterval(this.#identRetry);
    this.#commands.clear();
    await this.#port.link.close();
    await this.#mqtt.close({ reason: 'the bridge stopped' }); // [MC-6.8]
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
        // [SP-5.3] A PONG says "identified, and every line before your PING taken" [SP-5.6]; until the
        // link is up the answer is IDENT instead [SP-5.7].
        if (this.#up) this.#port.send({ type: 'PONG', ts: this.#now() });
        else this.#sendIdent();
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
        this.#refuse('rejected', 'SP-1.3', `${frame.type} goes bridge to meter, not back`);
    }
  }

  /** A line that did not parse, already answered by the port [SP-6]. */
  #onUnusable(error: ProtocolError): void {
    this.#stats.errors++;
    this.#opts.log('warn', `meter line refused: ${error.code} [${error.rule}] ${error.message}`);
    // [SP-5.4] A HELLO the bridge cannot take (another version, keepalive_s out of range, ...) means the
    // meter is no longer the one it identified: the link goes down until a good HELLO.
    if (error.type === 'HELLO') this.#down(`unusable HELLO: ${error.code} [${error.rule}]`);
    else if (!this.#up) this.#sendIdent(); // [SP-5.7] e.g. the STATE after a HELLO came corrupted
  }

  #refuse(code: 'rejected' | 'wrong_device', rule: string, message: string): void {
    this.#stats.errors++;
    this.#port.refuse(code, rule, message);
  }

  #onHello(frame: Extract<Frame, { type: 'HELLO' }>): void {
    const deviceId = this.#opts.broker.username;
    if (frame.device_id !== deviceId) {
      this.#refuse('wrong_device', 'SP-7.2', `this bridge serves ${deviceId}, not ${frame.device_id}`);
      this.#down(`HELLO from ${frame.device_id}`);
      return;
    }
    const info = helloToInfo(frame);
    if (!info.ok) {
      this.#refuse('rejected', info.error.rule, info.error.message);
      this.#down(`HELLO refused by [${info.error.rule}]`); // [SP-5.4]
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
      this.#refuse('rejected', state.error.rule, state.error.message);
      if (!this.#up) this.#sendIdent(); // [SP-5.7]
      return;
    }
    this.#state = state.value;
    if (this.#up) {
      if (this.#mqtt.ready) this.#mqtt.publish('state', state.value);
    } else {
      this.#up = true;
      this.#opts.recorder?.write({ dir: 'link', event: 'up' });
      this.#opts.log('info', `meter ${this.#opts.broker.username}: link up`);
      void this.#mqtt.announce(true); // [MC-6.3] info, state, online, buffered telemetry, connect sample
    }
  }

  #onTel(frame: Extract<Frame, { type: 'TEL' }>): void {
    if (!this.#up) {
      // [SP-5.6] Not taken: the meter holds it until a PONG, and resends it after the HELLO and STATE
      // that answer this IDENT [SP-5.7].
      this.#sendIdent();
      return;
    }
    const sample = telToSample(frame);
    if (!sample.ok) {
      this.#refuse('rejected', sample.error.rule, sample.error.message);
      return;
    }
    // [SP-6.6] Checked one line at a time, so a bad line never takes its neighbours with it.
    const verdict = this.#order.check(sample.value);
    if (verdict.kind === 'repeat') {
      this.#stats.repeats++;
      return;
    }
    if (verdict.kind === 'reject') {
      this.#refuse('rejected', verdict.rule, verdict.message);
      return;
    }
    this.#mqtt.pushSoon(sample.value); // [SP-7.1] lines read in one go leave as one message
  }

  /** [SP-5.10] An ACK/NAK counts only when its seq, id and op are those of a CMD in flight. */
  #onReply(frame: Extract<Frame, { type: 'ACK' | 'NAK' }>): void {
    const match = this.#commands.match(frame);
    if (!match.ok) {
      this.#stats.unmatchedReplies++;
      this.#refuse('rejected', match.rule, match.message);
      return;
    }
    if (match.command.from === 'bridge') {
      this.#onConnectReading(frame);
      return;
    }
    const reply = replyOf(frame);
    this.#opts.log(
      frame.type === 'ACK' ? 'info' : 'warn',
      `cmd ${frame.id}: meter answered ${frame.type === 'ACK' ? 'ACK' : `NAK ${frame.code}: ${frame.msg}`}`,
    );
    if (!reply.ok) {
      this.#refuse('rejected', reply.error.rule, reply.error.message);
      return;
    }
    if (this.#mqtt.ready) this.#mqtt.publish('reply', reply.value);
  }

  /** [SP-7.3] Sends a decoded command as a CMD line, or says why the bridge answers it itself. */
  #dispatch(id: string, command: Command): { code: 'busy' | 'invalid_argument'; message: string } | null {
    if (!this.#up) return { code: 'busy', message: 'meter link down' };
    if (this.#commands.full) {
      return { code: 'busy', message: `[SP-5.5] the meter has ${this.#commands.size} commands in flight` };
    }
    const seq = this.#commands.nextSeq();
    const frame = cmdFrame(seq, commandToWire(id, command));
    // [SP-4.13] Refused before anything is sent; the API answers 422 with this reason.
    const problem = commandLineProblem(frame);
    if (problem) {
      this.#stats.unframeable++;
      this.#opts.log('warn', `cmd ${id} (${frame.op}) refused [SP-4.13]: ${problem}`);
      return { code: 'invalid_argument', message: `[SP-4.13] ${problem}` };
    }
    if (!this.#port.send(frame)) return { code: 'busy', message: 'meter link down' };
    this.#commands.add({ seq, id, op: frame.op, from: 'service' });
    // A command crossing the bridge is a thing an operator looks for in the log (a relay that moved).
    this.#opts.log('info', `cmd ${id}: ${commandText(command)} -> meter (CMD seq=${seq})`);
    return null;
  }

  /** [SP-5.13] [MC-6.7] A `read` CMD of the bridge's own: its answer becomes the connect sample. */
  #askConnectReading(): void {
    if (this.#commands.full) {
      this.#opts.log('warn', `no connect sample: ${this.#commands.size} CMDs in flight [SP-5.5, SP-5.13]`);
      return;
    }
    const frame = connectReadCmd(this.#commands.nextSeq());
    if (this.#port.send(frame))
      this.#commands.add({ seq: frame.seq, id: frame.id, op: 'read', from: 'bridge' });
  }

  /** [SP-5.13] The answer to the bridge's own `read`: one sample, only if newer than the last [MC-7.5]. */
  #onConnectReading(frame: Extract<Frame, { type: 'ACK' | 'NAK' }>): void {
    const result = connectSampleOf(frame, this.#order);
    if (result.ok) this.#mqtt.pushSoon(result.sample);
    else this.#opts.log(result.level, `no connect sample: ${result.reason} [SP-5.13]`);
  }

  /** [SP-5.4] Link down: offline over MQTT, and a fresh HELLO needed. */
  #down(reason: string): void {
    this.#clearSilence();
    this.#hello = null;
    if (!this.#up) return;
    this.#up = false;
    this.#opts.recorder?.write({ dir: 'link', event: 'down', reason });
    this.#opts.log('warn', `meter ${this.#opts.broker.username}: link down: ${reason}; offline`);
    this.#mqtt.setAvailable(false, reason); // offline at once when announced, saying why [MC-6.8]
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

  /** [SP-5.2] At most one a second; carries the bridge's clock [SP-5.9]. */
  #sendIdent(): void {
    const now = this.#now();
    if (Math.abs(now - this.#lastIdent) < IDENT_MIN_GAP_MS) return;
    this.#lastIdent = now;
    this.#port.send({ type: 'IDENT', ts: now });
  }
}

/** A command in a log line: its op and arguments, a WiFi password never shown (SEC-1). */
function commandText(command: Command): string {
  const { op, ...args } = command as Command & { password?: string };
  if ('password' in args) args.password = '***';
  const text = Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' ');
  return text ? `${op} ${text}` : op;
}
