// [CL-10.3] A DLMS server address as the command line and the meters file give it.

import type { HdlcAddress } from '../../../firmware-protocol/dlms/hdlc/frame.ts';

/**
 * [CL-10.3] `--server`: `U` (one byte, the upper address alone), or `U/L` upper and lower (two bytes when
 * both fit 7 bits, else four). IS 15959 meters: upper 1, the management logical device.
 */
export function parseServerAddress(text: string): HdlcAddress | null {
  const m = /^(\d{1,5})(?:\/(\d{1,5}))?$/.exec(text);
  if (!m) return null;
  const upper = Number(m[1]);
  if (m[2] === undefined) return upper >= 1 && upper <= 0x7f ? { bytes: 1, value: upper } : null;
  const lower = Number(m[2]);
  if (upper > 0x3fff || lower > 0x3fff) return null;
  return upper <= 0x7f && lower <= 0x7f ? { bytes: 2, upper, lower } : { bytes: 4, upper, lower };
}
