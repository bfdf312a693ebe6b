// The wall-clock side of a meter's link faults (link-faults.ts decides, this acts): delayed replies on
// timers, the connection held down (flapping, power outage) and brought back, reconnect storms, and
// the samples held back. A VirtualMeter creates one only once it has a fault, so a meter without faults
// pays nothing for it.

import { encode, replyToWire } from '../firmware-protocol/mqtt/codec.ts';
import type { Sample } from '../firmware-protocol/mqtt/vocabulary.ts';
import {
  type CommandGate,
  commandGate,
  emptyHold,
  holding,
  isSilent,
  linkHeldDown,
  malformedReply,
  releaseHeld,
  replyFate,
  shapeSample,
} from './link-faults.ts';
import { activeFault, type Fault, type FaultOf } from './meter/faults/types.ts';

/** What the session may do to its meter's connection. */
export interface LinkPort {
  readonly id: string;
  faults(): readonly Fault[];
  /** Publishes on the meter's reply topic if it is connected (QoS 1, not retained). */
  publishReply(payload: string): void;
  /** Destroys the socket without DISCONNECT, so the broker fires the will [MC-6.2]. */
  dropAbruptly(): void;
  /** Publishes the meter's present state (retained): what changed while it was silent. */
  publishState(): void;
  /** Connects if the meter is meant to be online and is not connected; resolves once announced or refused. */
  reconnect(): Promise<void>;
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
}

export class LinkSession {
  readonly #port: LinkPort;
  readonly #hold = emptyHold();
  readonly #timers = new Set<NodeJS.Timeout>();
  /** reconnect_storm faults already run (each runs once, from its start). */
  readonly #storms = new Set<string>();
  /** reconnect_storm faults still dropping and reconnecting. */
  #storming = 0;
  #silent = false;
  #down = false;
  #stopped = false;

  constructor(port: LinkPort) {
    this.#port = port;
  }

  /** Publishing nothing (silence). */
  get silent(): boolean {
    return this.#silent;
  }
  /** A reconnect_storm is still dropping and reconnecting (a test waits for its end, not a guess). */
  get storming(): boolean {
    return this.#storming > 0;
  }
  /** The connection is held down by a fault: the meter must not connect. */
  get down(): boolean {
    return this.#down;
  }
  /** Nothing left to act on: no fault, nothing held, no timer. */
  get idle(): boolean {
    return !this.#silent && !this.#down && !holding(this.#hold) && this.#timers.size === 0;
  }

  /** On every step of the meter: silence, the link held down or back up, storms to start. */
  evaluate(faults: readonly Fault[], t: number): void {
    if (this.#stopped) return;
    const wasSilent = this.#silent;
    this.#silent = isSilent(faults, t);
    if (wasSilent && !this.#silent) this.#port.publishState(); // [M-10] it speaks again: its state first
    const down = linkHeldDown(faults, t);
    if (down !== this.#down) {
      this.#down = down;
      if (down) this.#port.dropAbruptly();
      else void this.#port.reconnect();
    }
    for (const f of faults) {
      if (f.kind === 'reconnect_storm' && !this.#storms.has(f.id) && activeFault([f], f.kind, t)) {
        this.#storms.add(f.id);
        void this.#storm(f);
      }
    }
  }

  /** Before a command from the broker is applied. */
  gate(commandId: string, t: number): CommandGate {
    return commandGate(this.#port.faults(), commandId, t);
  }

  /** A reply to a command from the broker: sent, delayed, dropped or garbled. */
  sendReply(commandId: string, payload: string, t: number): void {
    if (this.#silent) return;
    const fate = replyFate(this.#port.faults(), commandId, t);
    if (fate.kind === 'drop') return;
    const bytes = fate.kind === 'malformed' ? malformedReply(commandId) : payload;
    if (fate.kind === 'malformed' || fate.delayMs === 0) {
      this.#port.publishReply(bytes);
      return;
    }
    this.#after(fate.delayMs, () => {
      if (!this.#silent) this.#port.publishReply(bytes);
    });
  }

  /** A busy refusal [MC-8.7], through the same reply faults as any reply. */
  refuseBusy(commandId: string, gate: Extract<CommandGate, { kind: 'busy' }>, t: number): void {
    this.sendReply(commandId, encode('reply', replyToWire(commandId, gate.reply)), t);
  }

  /** A new telemetry sample: what to queue now (possibly none, possibly more than one). */
  shape(sample: Sample): Sample[] {
    return shapeSample(this.#hold, this.#port.faults(), sample);
  }

  /** Samples whose holding fault has ended (or was cleared) by t. */
  release(faults: readonly Fault[], t: number): Sample[] {
    return holding(this.#hold) ? releaseHeld(this.#hold, faults, t) : [];
  }

  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  /** `reconnects` abrupt drops, each followed by a reconnection, `interval_ms` (wall) apart. */
  async #storm(fault: FaultOf<'reconnect_storm'>): Promise<void> {
    const { reconnects, interval_ms } = fault.params;
    this.#port.log?.('info', `${this.#port.id}: reconnect storm ${fault.id}: ${reconnects} reconnections`);
    this.#storming++;
    try {
      for (let i = 0; i < reconnects; i++) {
        if (i > 0) await new Promise<void>((resolve) => this.#after(interval_ms, resolve));
        const still = this.#port.faults().some((f) => f.id === fault.id);
        if (this.#stopped || !still) return;
        if (this.#down) continue; // held down by another fault: nothing to drop
        this.#port.dropAbruptly();
        await this.#port.reconnect();
      }
    } finally {
      this.#storming--;
    }
  }

  #after(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.#stopped) fn();
    }, ms);
    this.#timers.add(timer);
  }
}
