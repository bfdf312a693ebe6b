// [HD-6] The parameters an SNRM proposes and a UA answers: the longest information field each side sends
// and receives, and the window each side sends and receives, in ISO/IEC 13239's parameter negotiation
// format (format identifier 0x81, group 0x80, then id, length, big-endian value). Pure.

/** [HD-6.2] What a side states; a parameter left out takes its default. */
export interface LinkParams {
  maxInfoTx?: number;
  maxInfoRx?: number;
  windowTx?: number;
  windowRx?: number;
}

/** Every parameter set: what one side of a link uses. */
export type Negotiated = Required<LinkParams>;

/** [HD-6.2] Defaults when a parameter (or the whole information field) is absent. */
export const DEFAULT_PARAMS: Negotiated = { maxInfoTx: 128, maxInfoRx: 128, windowTx: 1, windowRx: 1 };
/** [HD-6.3] The longest information field a length field of 11 bits leaves room for. */
export const MAX_INFO_FIELD = 2030;
export const MAX_WINDOW = 7;

const IDS = { maxInfoTx: 0x05, maxInfoRx: 0x06, windowTx: 0x07, windowRx: 0x08 } as const;
type Key = keyof typeof IDS;
const KEYS = Object.keys(IDS) as Key[];

export type ParamsResult =
  | { ok: true; params: LinkParams }
  | { ok: false; error: { code: 'bad_params'; rule: string; message: string } };

const fail = (rule: string, message: string): ParamsResult => ({
  ok: false,
  error: { code: 'bad_params', rule, message },
});

/** Reads an SNRM's or UA's information field; an empty one states nothing [HD-6.2]. */
export function decodeParams(info: Uint8Array): ParamsResult {
  if (info.length === 0) return { ok: true, params: {} };
  if (info.length < 3 || info[0] !== 0x81 || info[1] !== 0x80) {
    return fail('HD-6.1', 'parameters start with format identifier 0x81 and group identifier 0x80');
  }
  if (info[2] !== info.length - 3)
    return fail('HD-6.1', `group length ${info[2]}, ${info.length - 3} bytes follow`);
  const params: LinkParams = {};
  let at = 3;
  while (at < info.length) {
    const id = info[at]!;
    const len = info[at + 1];
    if (len === undefined || at + 2 + len > info.length)
      return fail('HD-6.1', `parameter 0x${id.toString(16)} overruns the group`);
    // [HD-6.1] A parameter we do not know is skipped, as ISO/IEC 13239 lets a receiver do.
    const key = KEYS.find((k) => IDS[k] === id);
    if (key !== undefined) {
      if (len < 1 || len > 4) return fail('HD-6.1', `parameter 0x${id.toString(16)} of ${len} bytes; 1 to 4`);
      let value = 0;
      for (let i = 0; i < len; i++) value = value * 256 + info[at + 2 + i]!;
      const max = key.startsWith('window') ? MAX_WINDOW : MAX_INFO_FIELD;
      // [HD-6.3] Too large a length is lowered to what the frame can carry; a zero is no parameter at all.
      if (value < 1) return fail('HD-6.3', `${key} ${value}; at least 1`);
      if (key.startsWith('window') && value > max)
        return fail('HD-6.3', `${key} ${value}; 1 to ${MAX_WINDOW}`);
      params[key] = Math.min(value, max);
    }
    at += 2 + len;
  }
  return { ok: true, params };
}

/**
 * [HD-6.1] Writes parameters as Gurux and the meters in our golden vectors do: an information field
 * length in 1 byte when it fits, else 2; a window in 4 bytes. Nothing stated, nothing written.
 */
export function encodeParams(params: LinkParams): Uint8Array {
  const body: number[] = [];
  for (const key of KEYS) {
    const value = params[key];
    if (value === undefined) continue;
    const max = key.startsWith('window') ? MAX_WINDOW : MAX_INFO_FIELD;
    if (!Number.isInteger(value) || value < 1 || value > max)
      throw new TypeError(`${key} ${value} is not 1..${max} [HD-6.3]`);
    const width = key.startsWith('window') ? 4 : value > 0xff ? 2 : 1;
    body.push(IDS[key], width);
    for (let i = width - 1; i >= 0; i--) body.push(Math.floor(value / 256 ** i) & 0xff);
  }
  if (body.length === 0) return new Uint8Array(0);
  return Uint8Array.from([0x81, 0x80, body.length, ...body]);
}

/**
 * [HD-6.4] What the server uses after an SNRM proposing `client` (the client's own view: its tx is what
 * it sends), given the most the server can do. Each value is the smaller of the two sides'; the UA
 * states the result from the server's view.
 */
export function negotiate(client: LinkParams, server: Negotiated): Negotiated {
  const d = DEFAULT_PARAMS;
  return {
    maxInfoTx: Math.min(client.maxInfoRx ?? d.maxInfoRx, server.maxInfoTx),
    maxInfoRx: Math.min(client.maxInfoTx ?? d.maxInfoTx, server.maxInfoRx),
    windowTx: Math.min(client.windowRx ?? d.windowRx, server.windowTx),
    windowRx: Math.min(client.windowTx ?? d.windowTx, server.windowRx),
  };
}
