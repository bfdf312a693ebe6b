// Protocol mode E [IEC-10]: the optical port's sign-on that hands the line to HDLC (IEC 62056-46) and
// DLMS/COSEM. The meter offers it with the enhanced identification `\2`; the reader selects it with
// `ACK 2 Z 2 CR LF`; both then run 8N1 at Z's rate. Pure: the meter's side is server.ts's `binaryMode`,
// this file the reader's choice and the messages themselves. Rule numbers refer to ./PROTOCOL.md.

import { type BaudChar, isBaudChar, MODE_C_BAUDS } from './chars.ts';
import { encodeMessage, type Message } from './codec.ts';

/** [IEC-10.1] The enhanced identification character of a meter that can switch to HDLC. */
export const MODE_E_ENHANCED = '2';
/** [IEC-10.2] Protocol control character `2`: the HDLC protocol procedure. */
export const MODE_E_PROTOCOL = '2';
/** [IEC-10.2] Mode control character `2`: binary mode (HDLC). */
export const MODE_E_MODE = '2';

type Identification = Extract<Message, { kind: 'identification' }>;

/** [IEC-10.2] `ACK 2 Z 2 CR LF`, the reader's option select for mode E at Z's rate. */
export function modeEOptionSelect(baudChar: BaudChar): Uint8Array {
  return encodeMessage({
    kind: 'option-select',
    protocol: MODE_E_PROTOCOL,
    baudChar,
    mode: MODE_E_MODE,
  });
}

/** Whether an option select is mode E's [IEC-10.2]. */
export function isModeE(m: Extract<Message, { kind: 'option-select' }>): boolean {
  return m.protocol === MODE_E_PROTOCOL && m.mode === MODE_E_MODE;
}

export type ModeEChoice =
  | { ok: true; baudChar: BaudChar; baud: number; optionSelect: Uint8Array }
  | { ok: false; rule: string; reason: string };

/**
 * [IEC-10.3] The reader's answer to an identification: mode E at the slower of the meter's offer and
 * the reader's own limit, or why not (the meter does not offer mode E, or its baud character is not a
 * mode C/E digit).
 */
export function chooseModeE(id: Identification, maxBaudChar: BaudChar = '5'): ModeEChoice {
  if (id.enhanced !== MODE_E_ENHANCED)
    return { ok: false, rule: 'IEC-10.1', reason: `the meter offers no mode E (identification without \\2)` };
  if (!isBaudChar(id.baudChar))
    return { ok: false, rule: 'IEC-10.3', reason: `baud-rate character ${id.baudChar} is not 0..6` };
  const baudChar = id.baudChar < maxBaudChar ? id.baudChar : maxBaudChar;
  return { ok: true, baudChar, baud: MODE_C_BAUDS[baudChar], optionSelect: modeEOptionSelect(baudChar) };
}
