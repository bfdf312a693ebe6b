// How big an MQTT packet may be, read from its fixed header before anything of its body is buffered.
// aedes (through mqtt-packet) has no packet size limit: it buffers a packet whole before it looks at
// it, so one CONNECT declaring 250 MB made the broker hold 250 MB per connection (issue 8 item 7).
// This scanner only walks fixed headers: per packet a type byte and 1-4 length bytes, the body is
// skipped by count, so it costs next to nothing on the telemetry path.

/** MC-3.1: the largest payload. */
export const MAX_PAYLOAD_BYTES = 262_144;
/**
 * [MC-10.1] The largest remaining length (variable header + payload) of any packet: a full MC-3.1
 * payload plus 1 KiB for the topic (91 bytes at most by MC-1.1 and MC-1.2), the packet id and
 * MQTT 5 properties.
 */
export const DEFAULT_MAX_PACKET_BYTES = MAX_PAYLOAD_BYTES + 1024;
/**
 * [MC-10.2] The largest CONNECT: client id, will (an availability payload, MC-6.2), username and
 * password need a few hundred bytes. Checked before login, when nobody is known yet.
 */
export const MAX_CONNECT_BYTES = 16 * 1024;

const CONNECT = 1;

export type PacketVerdict =
  | { ok: true }
  | { ok: false; rule: 'MC-10.1' | 'MC-10.2'; reason: string }
  | { ok: false; rule: 'MQTT-2.2.3'; reason: string };

const OK: PacketVerdict = { ok: true };

const Phase = { Type: 0, Length: 1, Body: 2 } as const;

/** Follows one byte stream packet by packet; `feed` every chunk in order. */
export class PacketScanner {
  readonly #maxPacket: number;
  readonly #maxConnect: number;
  #phase: number = Phase.Type;
  #type = 0;
  #length = 0;
  #multiplier = 1;
  #lengthBytes = 0;
  #remaining = 0;

  constructor(maxPacketBytes: number) {
    if (!Number.isInteger(maxPacketBytes) || maxPacketBytes < 2)
      throw new TypeError(`maxPacketBytes must be an integer >= 2, got ${maxPacketBytes}`);
    this.#maxPacket = maxPacketBytes;
    this.#maxConnect = Math.min(maxPacketBytes, MAX_CONNECT_BYTES);
  }

  /** The first packet in `chunk` that breaks a limit, or ok. After a refusal, stop feeding. */
  feed(chunk: Uint8Array): PacketVerdict {
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.#phase === Phase.Body) {
        const take = Math.min(this.#remaining, n - i);
        i += take;
        this.#remaining -= take;
        if (this.#remaining === 0) this.#phase = Phase.Type;
      } else if (this.#phase === Phase.Type) {
        this.#type = chunk[i++]! >> 4;
        this.#length = 0;
        this.#multiplier = 1;
        this.#lengthBytes = 0;
        this.#phase = Phase.Length;
      } else {
        const b = chunk[i++]!;
        this.#length += (b & 0x7f) * this.#multiplier;
        this.#multiplier *= 128;
        this.#lengthBytes++;
        if (b & 0x80) {
          if (this.#lengthBytes === 4)
            return { ok: false, rule: 'MQTT-2.2.3', reason: 'remaining length longer than 4 bytes' };
          continue;
        }
        const verdict = this.#check();
        if (!verdict.ok) return verdict;
        this.#remaining = this.#length;
        this.#phase = this.#remaining > 0 ? Phase.Body : Phase.Type;
      }
    }
    return OK;
  }

  #check(): PacketVerdict {
    if (this.#type === CONNECT && this.#length > this.#maxConnect) {
      return {
        ok: false,
        rule: 'MC-10.2',
        reason: `CONNECT declares ${this.#length.toLocaleString('en')} bytes, more than ${this.#maxConnect.toLocaleString('en')}`,
      };
    }
    if (this.#length > this.#maxPacket) {
      return {
        ok: false,
        rule: 'MC-10.1',
        reason: `packet type ${this.#type} declares ${this.#length.toLocaleString('en')} bytes, more than ${this.#maxPacket.toLocaleString('en')}`,
      };
    }
    return OK;
  }
}
