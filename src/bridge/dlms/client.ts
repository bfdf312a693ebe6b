// The DLMS client session (firmware-protocol/dlms/client) driven on a real transport and a real clock:
// calls become promises, taken one at a time in order; the session's deadline becomes a timer.

import type { Call, Outcome } from '../../../firmware-protocol/dlms/client/calls.ts';
import {
  deadlineOf,
  INITIAL_SESSION,
  type SessionConfig,
  type SessionEvent,
  type SessionState,
  sessionStep,
} from '../../../firmware-protocol/dlms/client/session.ts';
import type { ApduTransport } from './transport.ts';

export interface DlmsClientOptions {
  transport: ApduTransport;
  session: SessionConfig;
  now: () => number;
  /** [CL-7.1] A dropped frame or APDU: counted and logged by the caller. */
  onBad: (rule: string, reason: string) => void;
  /** The transport went away (or the association was lost): the caller re-associates. */
  onLost: (reason: string) => void;
}

export class DlmsClient {
  readonly #opts: DlmsClientOptions;
  readonly #config: SessionConfig;
  #state: SessionState = INITIAL_SESSION;
  #queue: { call: Call; resolve: (o: Outcome) => void }[] = [];
  #current: ((o: Outcome) => void) | null = null;
  #timer: NodeJS.Timeout | null = null;
  #lost = false;

  constructor(opts: DlmsClientOptions) {
    this.#opts = opts;
    // [CL-3.2] Repeats only where the link can repeat a frame without the meter running it twice.
    this.#config = { ...opts.session, retries: Math.min(opts.session.retries, opts.transport.retries) };
  }

  /** Opens the transport and associates; throws with the reason either failed. */
  async open(): Promise<Outcome & { kind: 'associated' }> {
    await this.#opts.transport.open({
      onApdu: (apdu) => this.#step({ kind: 'response', apdu, atMs: this.#opts.now() }),
      onClosed: (reason) => this.#lose(reason),
      onBad: this.#opts.onBad,
    });
    const outcome = await this.call({ kind: 'associate' });
    if (outcome.kind !== 'associated') {
      await this.#opts.transport.close();
      throw new Error(outcome.kind === 'failed' ? outcome.message : `association: ${outcome.kind}`);
    }
    return outcome;
  }

  get associated(): boolean {
    return !this.#lost && this.#state.phase === 'ready';
  }

  call(call: Call): Promise<Outcome> {
    // Nothing is sent on a lost link: the caller knows for certain the meter did not get it.
    if (this.#lost)
      return Promise.resolve({ kind: 'failed', reason: 'not_associated', message: 'link lost' });
    return new Promise((resolve) => {
      this.#queue.push({ call, resolve });
      this.#next();
    });
  }

  /** [CL-6.1] Releases the association (briefly waiting for RLRE) and closes the transport. */
  async close(): Promise<void> {
    if (!this.#lost && this.#state.phase === 'ready') {
      await Promise.race([this.call({ kind: 'release' }), new Promise((r) => setTimeout(r, 1_000).unref())]);
    }
    this.#lose('closed by the bridge');
    await this.#opts.transport.close();
  }

  #next(): void {
    if (this.#current || this.#queue.length === 0) return;
    const { call, resolve } = this.#queue.shift()!;
    this.#current = resolve;
    this.#step({ kind: 'call', call, atMs: this.#opts.now() });
  }

  #lose(reason: string): void {
    if (this.#lost) return;
    this.#lost = true;
    // Queued calls were never sent: not_associated, so a recharge among them is known not applied.
    for (const q of this.#queue.splice(0))
      q.resolve({ kind: 'failed', reason: 'not_associated', message: reason });
    this.#step({ kind: 'lost', reason });
    if (this.#timer) clearTimeout(this.#timer);
    this.#opts.onLost(reason);
  }

  #step(event: SessionEvent): void {
    const r = sessionStep(this.#config, this.#state, event);
    this.#state = r.state;
    let finished: Outcome | null = null;
    for (const e of r.effects) {
      if (e.kind === 'send') this.#opts.transport.send(e.apdu);
      else if (e.kind === 'repeat') this.#opts.transport.repeat();
      else if (e.kind === 'dropped') this.#opts.onBad(e.rule, e.reason);
      else finished = e.outcome;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const deadline = deadlineOf(this.#state);
    if (deadline !== null) {
      this.#timer = setTimeout(
        () => this.#step({ kind: 'tick', atMs: this.#opts.now() }),
        Math.max(0, deadline - this.#opts.now()),
      );
    }
    if (finished) {
      const resolve = this.#current;
      this.#current = null;
      resolve?.(finished);
      // [CL-3.3] A timeout leaves no association: say so once, the caller re-associates.
      if (finished.kind === 'failed' && finished.reason === 'timeout') this.#lose(finished.message);
      else this.#next();
    }
  }
}
