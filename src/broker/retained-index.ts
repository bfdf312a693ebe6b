// aedes' in-memory persistence answers "which retained messages match this subscription" by testing
// every retained topic against the filter. Each meter leaves three retained messages and subscribes
// once, so connecting N meters costs O(N²): 10,000 meters took 154 s. Meters subscribe only to exact
// topics [MC-2.2], so an exact-topic index answers those in O(1); wildcard filters (the service's
// `meterstack/v1/+/state`, an admin's `#`) still take aedes' own scan.

import { createRequire } from 'node:module';
import { Readable } from 'node:stream';

const require = createRequire(import.meta.url);

interface RetainedPacket {
  topic: string;
  payload: Buffer;
}

interface AsyncPersistenceBase {
  storeRetained(packet: RetainedPacket): Promise<void>;
  createRetainedStream(pattern: string): Readable;
  createRetainedStreamCombi(patterns: string[]): Readable;
}

type AsyncPersistenceClass = new (opts?: object) => AsyncPersistenceBase;
type CallBackPersistenceClass = new (
  factory: (opts: object) => AsyncPersistenceBase,
  opts?: object,
) => object;

const MemoryPersistence = require('aedes-persistence/asyncPersistence.js') as AsyncPersistenceClass;
const { CallBackPersistence } = require('aedes-persistence/callBackPersistence.js') as {
  CallBackPersistence: CallBackPersistenceClass;
};

const hasWildcard = (pattern: string) => pattern.includes('+') || pattern.includes('#');

export class IndexedRetainedPersistence extends MemoryPersistence {
  readonly #exact = new Map<string, RetainedPacket>();

  override async storeRetained(packet: RetainedPacket): Promise<void> {
    await super.storeRetained(packet);
    // [MQTT-3.3.1-10] an empty retained payload clears the topic.
    if (packet.payload.length === 0) this.#exact.delete(packet.topic);
    else this.#exact.set(packet.topic, { ...packet });
  }

  override createRetainedStream(pattern: string): Readable {
    return this.createRetainedStreamCombi([pattern]);
  }

  override createRetainedStreamCombi(patterns: string[]): Readable {
    if (patterns.some(hasWildcard)) return super.createRetainedStreamCombi(patterns);
    const found: RetainedPacket[] = [];
    for (const pattern of patterns) {
      const packet = this.#exact.get(pattern);
      if (packet) found.push(packet);
    }
    return Readable.from(found);
  }
}

/** The persistence to hand to `Aedes.createBroker({ persistence })`. */
export function indexedMemoryPersistence(): object {
  return new CallBackPersistence((opts) => new IndexedRetainedPersistence(opts));
}
