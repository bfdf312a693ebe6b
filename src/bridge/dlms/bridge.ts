// The DLMS bridge loop [CL-9]: associate, learn the meter (object list, scalers, name plate, block load
// columns), then poll its registers and its load profile into the meter link; answer commands through
// disconnect control, the credit object and meterstack's Data objects. A drop or a replug is met by
// re-associating with backoff; a bad frame is counted and logged, never an exit.

import type { AttributeDescriptor, GetDataResult } from '../../../firmware-protocol/dlms/apdu/cosem.ts';
import { attribute, rangeAccess } from '../../../firmware-protocol/dlms/client/calls.ts';
import type { SessionConfig } from '../../../firmware-protocol/dlms/client/session.ts';
import {
  captureColumnsFrom,
  numberFrom,
  objectListFrom,
  rowsFrom,
} from '../../../firmware-protocol/dlms/client/values.ts';
import { OBIS } from '../../../firmware-protocol/dlms/cosem/obis.ts';
import type { WireReply } from '../../../firmware-protocol/mqtt/codec.ts';
import type { InfoPayload } from '../../../firmware-protocol/mqtt/schemas.ts';
import type { MeterCommand, ReportedState, Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { type Log, MqttMeter } from '../modbus/mqtt-meter.ts';
import { type AnswerContext, answerCommand, settleInDoubt } from './answer.ts';
import { DlmsClient } from './client.ts';
import { type CreditReading, creditReading } from './in-doubt.ts';
import {
  identityFrom,
  infoOf,
  type MeterModel,
  modelFromList,
  NAME_PLATE,
  pollAttributes,
  readPoll,
  type Scalers,
  scalerAttributes,
  scalersFrom,
} from './meter-model.ts';
import { clockCheck, type ProfilePlan, profilePlan, rangeToRead, samplesFromRows } from './profile.ts';
import type { BridgeStateFile } from './state-file.ts';
import type { ApduTransport } from './transport.ts';

/** [CL-9.7] Re-association backoff: 1 s doubling to 30 s, as the bridges reconnect (decision 171). */
export const REASSOCIATE_BACKOFF_MS = { first: 1_000, max: 30_000 } as const;

/** [CL-9.8] Longest quiet time on an association: half the 120 s an IEC 62056-46 meter waits by default. */
export const KEEP_ALIVE_MS = 60_000;

export interface DlmsBridgeDeps {
  /** A fresh transport for each association. */
  transport: () => ApduTransport;
  session: SessionConfig;
  broker: { url: string; username: string; password: string };
  deviceId: string;
  pollMs: number;
  /** [CL-8.5] The meter's zone, minutes east of UTC (IS 15959 meters: IST, 330). */
  offsetMin: number;
  stateFile: BridgeStateFile;
  log: Log;
  onFatal?: (reason: string) => void;
  now: () => number;
}

interface Learnt {
  model: MeterModel;
  scalers: Scalers;
  info: InfoPayload;
  plan: ProfilePlan | null;
  polls: ReturnType<typeof pollAttributes>;
}

export class DlmsBridge {
  readonly #d: DlmsBridgeDeps;
  readonly #mqtt: MqttMeter;
  #client: DlmsClient | null = null;
  #meter: Learnt | null = null;
  #state: ReportedState | null = null;
  #sample: Sample | null = null;
  #credit: CreditReading | null = null;
  /** [CL-9.6] The tail of the money work: recharges and settling run one at a time, in order. */
  #moneyTail: Promise<unknown> = Promise.resolve();
  #lastEnergy = 0;
  #clockOff: boolean | null = null;
  #offsetMs = 0;
  #backoffMs: number = REASSOCIATE_BACKOFF_MS.first;
  #bad = 0;
  #lastFailure = '';
  #stopped = false;
  #wake: (() => void) | null = null;
  #loop: Promise<void> = Promise.resolve();

  constructor(deps: DlmsBridgeDeps) {
    this.#d = deps;
    this.#mqtt = new MqttMeter({
      broker: deps.broker,
      deviceId: deps.deviceId,
      info: () => this.#meter?.info ?? null,
      state: () => this.#state,
      answer: (c) => this.#answer(c),
      now: deps.now,
      log: deps.log,
      onConnected: () => this.#wake?.(),
      onFatal: deps.onFatal,
    });
  }

  /** [CL-7.1] Frames and APDUs dropped so far. */
  get badFrames(): number {
    return this.#bad;
  }

  start(): void {
    this.#loop = this.#run();
  }

  async close(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#loop;
    await this.#client?.close();
    await this.#mqtt.close();
  }

  async #run(): Promise<void> {
    let nextPoll = 0;
    while (!this.#stopped) {
      let delay = this.#d.pollMs;
      try {
        if (!this.#client) {
          nextPoll = 0;
          if (await this.#associate()) this.#backoffMs = REASSOCIATE_BACKOFF_MS.first;
          else {
            delay = this.#backoffMs;
            this.#backoffMs = Math.min(this.#backoffMs * 2, REASSOCIATE_BACKOFF_MS.max);
          }
        }
        if (this.#client && this.#d.now() >= nextPoll) {
          nextPoll = this.#d.now() + this.#d.pollMs;
          await this.#poll();
          await this.#readProfile();
        } else if (this.#client) {
          // [CL-9.8] Keep-alive between long polls: the meter's link would drop after its inactivity timeout.
          await this.#client.call({ kind: 'get', attribute: attribute(8, OBIS.clock, 2) });
        }
        if (this.#client) delay = Math.min(Math.max(0, nextPoll - this.#d.now()), KEEP_ALIVE_MS);
      } catch (err) {
        this.#d.log('error', `${this.#d.deviceId}: dlms: poll crashed: ${(err as Error).stack ?? err}`);
      }
      await this.#sleep(delay);
    }
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = null;
        done();
      };
    });
  }

  #say(level: 'debug' | 'info' | 'warn' | 'error', msg: string): void {
    this.#d.log(level, `${this.#d.deviceId}: dlms: ${msg}`);
  }

  /** [CL-9.1, CL-9.7] Opens a transport, associates and learns the meter; false (logged) on failure. */
  async #associate(): Promise<boolean> {
    const transport = this.#d.transport();
    const client = new DlmsClient({
      transport,
      session: this.#d.session,
      now: this.#d.now,
      onBad: (rule, reason) => {
        this.#bad++;
        this.#say('warn', `${transport.where}: dropped [${rule}] ${reason} (${this.#bad} so far)`);
      },
      onLost: (reason) => {
        if (this.#client !== client) return;
        this.#client = null;
        this.#say('warn', `${transport.where}: association lost (${reason}); re-associating`);
        this.#mqtt.setOnline(false, `dlms: ${reason}`);
      },
    });
    try {
      await client.open();
      this.#client = client;
      const learnt = await this.#learn(client);
      if ('error' in learnt) throw new Error(learnt.error);
      const changed = JSON.stringify(learnt.info) !== JSON.stringify(this.#meter?.info);
      this.#meter = learnt;
      this.#say('info', `${transport.where}: associated; ${describe(learnt)}`);
      if (changed) this.#mqtt.announce();
      await settleInDoubt(this.#answerContext()); // [CL-9.6] a lost answer decided from the credit now
      return true;
    } catch (err) {
      this.#client = null;
      await client.close().catch(() => undefined);
      this.#say('warn', `${transport.where}: cannot associate: ${(err as Error).message}`);
      this.#mqtt.setOnline(false, `dlms: ${(err as Error).message}`);
      return false;
    }
  }

  async #learn(client: DlmsClient): Promise<Learnt | { error: string }> {
    const list = await client.call({ kind: 'get', attribute: attribute(15, OBIS.associationCurrent, 2) });
    if (list.kind !== 'data') return { error: `object list: ${failure(list)}` };
    const objects = objectListFrom(list.data);
    if (!objects) return { error: 'object list of an unknown shape [CL-8.2]' };
    const model = modelFromList(objects);
    if ('error' in model) return model;
    const scalerAttrs = scalerAttributes(model);
    const scalers = scalersFrom(scalerAttrs, await this.#getMany(scalerAttrs));
    const plate = NAME_PLATE.filter((n) => model.listed.has(n.obis)).map((n) => attribute(1, n.obis, 2));
    const identity = identityFrom(await this.#getMany(plate));
    let plan: ProfilePlan | null = null;
    if (model.blockLoad) {
      const [cols, period] = await this.#getMany([
        attribute(7, OBIS.blockLoadProfile, 3),
        attribute(7, OBIS.blockLoadProfile, 4),
      ]);
      const columns = cols?.kind === 'data' ? captureColumnsFrom(cols.data) : null;
      const periodS = period?.kind === 'data' ? numberFrom(period.data) : null;
      const p = columns && periodS !== null ? profilePlan(columns, periodS) : { error: 'unreadable' };
      if ('error' in p) this.#say('warn', `block load profile not used: ${p.error}`);
      else plan = p;
    }
    const pollS = this.#d.pollMs / 1000;
    const info = infoOf(this.#d.deviceId, model, identity, pollS);
    return { model, scalers, info, plan, polls: pollAttributes(model) };
  }

  /** One GET with-list, or one GET each where the meter does not take several references. */
  async #getMany(attrs: AttributeDescriptor[]): Promise<GetDataResult[]> {
    const client = this.#client;
    if (!client || attrs.length === 0) return [];
    const out = await client.call({ kind: 'get-list', items: attrs.map((a) => ({ attribute: a })) });
    if (out.kind === 'list') return out.results;
    // Only a meter that cannot take a with-list (an ExceptionResponse) is asked one attribute at a time.
    if (out.kind !== 'failed' || out.reason !== 'exception') {
      return attrs.map(() => ({ kind: 'error' as const, result: 250 }));
    }
    const each: GetDataResult[] = [];
    for (const a of attrs) {
      const one = await client.call({ kind: 'get', attribute: a });
      each.push(
        one.kind === 'data'
          ? { kind: 'data', data: one.data }
          : { kind: 'error', result: one.kind === 'failed' ? (one.result ?? 250) : 250 },
      );
    }
    return each;
  }

  /** [CL-9.2] Reads the registers and the state; publishes the sample, and the state when it changed. */
  async #poll(): Promise<{ ok: true } | { ok: false; message: string }> {
    const m = this.#meter;
    if (!m || !this.#client) return { ok: false, message: 'no association' };
    const now = this.#d.now();
    const results = await this.#getMany(m.polls.map((p) => p.attribute));
    const read = readPoll(m.polls, results, m.scalers, now, this.#d.offsetMin);
    if (!read.ok) {
      // Each new kind of failure once, not every poll of a meter that keeps failing the same way.
      if (this.#client && read.message !== this.#lastFailure) this.#say('warn', `poll: ${read.message}`);
      this.#lastFailure = read.message;
      return read;
    }
    this.#lastFailure = '';
    this.#checkClock(read.meterClockMs, now);
    this.#mqtt.setOnline(true);
    const before = this.#state;
    this.#state = read.state;
    this.#sample = read.sample;
    const energyScaler = m.scalers.get(OBIS.energyKwh)?.scaler ?? 0;
    this.#credit = creditReading(read.sample, read.values, energyScaler, read.meterClockMs);
    const { ts: _a, ...was } = before ?? { ts: 0 };
    const { ts: _b, ...is } = read.state;
    if (before && JSON.stringify(was) !== JSON.stringify(is)) this.#mqtt.publishState(read.state); // [MC-5.1]
    if (!before) this.#mqtt.announce();
    if (read.sample.energy < this.#lastEnergy) {
      this.#say(
        'warn',
        `energy fell from ${this.#lastEnergy} to ${read.sample.energy} kWh; sample dropped [MC-7.5]`,
      );
    } else {
      this.#lastEnergy = read.sample.energy;
      this.#mqtt.addSample(read.sample);
    }
    return { ok: true };
  }

  /** [CL-9.4] A meter clock far off is logged once each time it goes off or comes back. */
  #checkClock(meterMs: number | null, now: number): void {
    const c = clockCheck(meterMs, now);
    this.#offsetMs = c.off ? c.offsetMs : 0;
    if (c.off === this.#clockOff) return;
    this.#clockOff = c.off;
    if (c.off) {
      const what = meterMs === null ? 'unreadable' : `${Math.round(c.offsetMs / 1000)} s off`;
      this.#say(
        'warn',
        `the meter's clock is ${what} [CL-9.4]: profile rows are moved onto the bridge's clock`,
      );
    } else if (meterMs !== null) this.#say('info', "the meter's clock agrees with the bridge's [CL-9.4]");
  }

  /** [CL-9.3] Reads the blocks closed since the cursor, pushes each once, moves the cursor. */
  async #readProfile(): Promise<void> {
    const m = this.#meter;
    const client = this.#client;
    const plan = m?.plan;
    if (!client || !plan) return;
    const now = this.#d.now();
    const cursor = this.#d.stateFile.cursorMs;
    if (cursor !== null && now < cursor + plan.periodS * 1000) return; // no new block can have closed
    const range = rangeToRead(cursor, now, this.#offsetMs);
    const out = await client.call({
      kind: 'get',
      attribute: attribute(7, OBIS.blockLoadProfile, 2),
      access: rangeAccess(range.from, range.to, this.#d.offsetMin),
    });
    if (out.kind !== 'data') return this.#say('warn', `block load profile: ${failure(out)}`);
    const rows = rowsFrom(out.data, plan.clockColumn, this.#d.offsetMin);
    if (!rows) return this.#say('warn', 'block load profile buffer of an unknown shape [CL-8.6]');
    const balance = this.#state?.balance ?? 0;
    const got = samplesFromRows(rows, plan, m.scalers, {
      cursorMs: cursor,
      shiftMs: this.#offsetMs,
      nowMs: now,
      balance,
    });
    for (const s of got.samples) this.#mqtt.addHistory(s);
    if (got.samples.length > 0) this.#say('debug', `block load: ${got.samples.length} blocks pushed`);
    this.#d.stateFile.cursorMs = got.cursorMs;
  }

  /** [CL-9.5, CL-9.6] A contract command through the meter (answer.ts). */
  #answer(command: MeterCommand): Promise<WireReply> {
    return answerCommand(this.#answerContext(), command);
  }

  #answerContext(): AnswerContext {
    return {
      model: () => this.#meter?.model ?? null,
      client: () => this.#client,
      stateFile: this.#d.stateFile,
      poll: () => this.#poll(),
      state: () => this.#state,
      sample: () => this.#sample,
      credit: () => this.#credit,
      money: (fn) => {
        const run = this.#moneyTail.then(fn, fn);
        this.#moneyTail = run.catch(() => undefined);
        return run;
      },
      now: this.#d.now,
      say: (level, msg) => this.#say(level, msg),
    };
  }
}

function failure(o: { kind: string; message?: string }): string {
  return o.kind === 'failed' ? (o.message ?? 'failed') : `unexpected ${o.kind}`;
}

function describe(l: Learnt): string {
  const m = l.model;
  const has = [
    m.disconnect && 'disconnect control',
    m.credit && 'credit',
    l.plan && 'block load profile',
  ].filter(Boolean);
  return `${l.info.model} meter, ${m.registers.length} registers${has.length ? `, ${has.join(', ')}` : ''}`;
}
