// [HD-5.1] The LLC header DLMS puts before an APDU in the first (or only) frame of a message: destination
// LSAP 0xE6, source LSAP 0xE6 (command, client to server) or 0xE7 (response, server to client), and a
// quality byte 0x00. A segmented message carries it once, in its first frame [HD-7.2].

export type Direction = 'command' | 'response';

export const LLC_COMMAND = Uint8Array.of(0xe6, 0xe6, 0x00);
export const LLC_RESPONSE = Uint8Array.of(0xe6, 0xe7, 0x00);

export function withLlc(apdu: Uint8Array, direction: Direction): Uint8Array {
  const out = new Uint8Array(3 + apdu.length);
  out.set(direction === 'command' ? LLC_COMMAND : LLC_RESPONSE);
  out.set(apdu, 3);
  return out;
}

export type LlcResult =
  | { ok: true; direction: Direction; apdu: Uint8Array }
  | { ok: false; error: { code: 'bad_llc'; rule: 'HD-5.1'; message: string } };

export function stripLlc(data: Uint8Array): LlcResult {
  if (data.length < 3 || data[0] !== 0xe6 || (data[1] !== 0xe6 && data[1] !== 0xe7) || data[2] !== 0x00) {
    const head = Array.from(data.subarray(0, 3), (b) => b.toString(16).padStart(2, '0')).join(' ');
    return {
      ok: false,
      error: { code: 'bad_llc', rule: 'HD-5.1', message: `LLC header "${head}", want e6 e6 00 or e6 e7 00` },
    };
  }
  return {
    ok: true,
    direction: data[1] === 0xe6 ? 'command' : 'response',
    apdu: new Uint8Array(data.subarray(3)),
  };
}
