// [HD-7] Segmentation: a message (LLC header + APDU) longer than the negotiated information field goes
// out as several I-frames, each but the last with the format field's S bit set; the receiver joins them.
// Pure; the reassembly is a value threaded through, bounded by the longest message the receiver takes.

/** [HD-7.1] Cuts `message` into information fields of at most `maxInfo` bytes; `more` is the S bit. */
export function segment(message: Uint8Array, maxInfo: number): { info: Uint8Array; more: boolean }[] {
  if (!Number.isInteger(maxInfo) || maxInfo < 1)
    throw new TypeError(`maxInfo ${maxInfo} is not a positive integer [HD-7.1]`);
  const out: { info: Uint8Array; more: boolean }[] = [];
  for (let at = 0; at < message.length; at += maxInfo) {
    out.push({
      info: new Uint8Array(message.subarray(at, at + maxInfo)),
      more: at + maxInfo < message.length,
    });
  }
  if (out.length === 0) out.push({ info: new Uint8Array(0), more: false });
  return out;
}

/** The segments received so far of one message. */
export interface Reassembly {
  readonly parts: readonly Uint8Array[];
  readonly bytes: number;
}

export const EMPTY_REASSEMBLY: Reassembly = { parts: [], bytes: 0 };

export type ReassemblyStep =
  | { kind: 'more'; reassembly: Reassembly }
  | { kind: 'done'; message: Uint8Array }
  | { kind: 'too_long'; rule: 'HD-7.3'; bytes: number };

/**
 * [HD-7.2] Adds one I-frame's information field. [HD-7.3] A message that would pass `maxBytes` is
 * refused at the segment that overflows it, so a peer cannot make the receiver hold more than that.
 */
export function addSegment(r: Reassembly, info: Uint8Array, more: boolean, maxBytes: number): ReassemblyStep {
  const bytes = r.bytes + info.length;
  if (bytes > maxBytes) return { kind: 'too_long', rule: 'HD-7.3', bytes };
  const parts = [...r.parts, info];
  if (more) return { kind: 'more', reassembly: { parts, bytes } };
  const message = new Uint8Array(bytes);
  let at = 0;
  for (const part of parts) {
    message.set(part, at);
    at += part.length;
  }
  return { kind: 'done', message };
}
