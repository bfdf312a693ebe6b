// Every event a running service emits, kept for a test to wait for and check. Each one is checked
// against EventSchema as it arrives: an emitter that breaks its schema fails the test that saw it.

import { type EventBus, requestEvent } from '../../src/events/bus.ts';
import { EventSchema, type EventType, type MeterEvent } from '../../src/events/schemas.ts';

export class Collected {
  readonly events: MeterEvent[] = [];
  /** Events that did not pass EventSchema, with zod's message. */
  readonly invalid: { event: MeterEvent; error: string }[] = [];
  readonly stop: () => void;

  constructor(bus: EventBus) {
    const keep = (e: MeterEvent) => {
      this.events.push(e);
      const parsed = EventSchema.safeParse(e);
      if (!parsed.success) this.invalid.push({ event: e, error: parsed.error.message });
    };
    const events = bus.subscribe(keep);
    // Answered requests are watched, not subscribed [EXT-7]: built into the events they are.
    const requests = bus.onRequest((seq, vt, wt, data, accountId) =>
      keep(requestEvent(seq, vt, wt, data, accountId)),
    );
    this.stop = () => {
      events();
      requests();
    };
  }

  of<T extends EventType>(type: T, deviceId?: string): MeterEvent<T>[] {
    return this.events.filter(
      (e): e is MeterEvent<T> => e.type === type && (deviceId === undefined || e.device_id === deviceId),
    );
  }

  /** The first event of `type` (already seen or still to come) that matches. */
  async waitFor<T extends EventType>(
    type: T,
    match: (e: MeterEvent<T>) => boolean = () => true,
    timeoutMs = 5_000,
  ): Promise<MeterEvent<T>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.of(type).find(match);
      if (found) return found;
      if (Date.now() > deadline) {
        const seen = this.events.map((e) => e.type).join(', ');
        throw new Error(`no matching ${type} within ${timeoutMs} ms; seen: ${seen}`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}
