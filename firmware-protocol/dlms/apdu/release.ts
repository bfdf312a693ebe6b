// RLRQ and RLRE: releasing an association [AP-2.11].

import { tlv } from './aarq.ts';
import { Reader, Writer } from './axdr.ts';
import { readTlv, readTlvs, writeTlv } from './ber.ts';
import { fail } from './errors.ts';
import { encodeUserInformation, readUserInformation, type UserInformation } from './initiate.ts';

export const RLRQ = 0x62;
export const RLRE = 0x63;

/** [AP-2.11] Release request reasons (normal 0, urgent 1, user-defined 30) and response reasons (normal 0, not-finished 1, user-defined 30). */
export interface Release {
  type: 'rlrq' | 'rlre';
  reason?: number;
  userInformation?: UserInformation;
}

export function readRelease(r: Reader): Release {
  const at = r.offset;
  const outer = readTlv(r);
  if (outer.tag !== RLRQ && outer.tag !== RLRE)
    fail('bad_tag', 'AP-2.11', `release tag 0x${outer.tag.toString(16)}`, at);
  const out: Release = { type: outer.tag === RLRQ ? 'rlrq' : 'rlre' };
  for (const t of readTlvs(outer)) {
    if (t.tag === 0x80) {
      if (t.value.length !== 1) fail('bad_value', 'AP-2.11', 'release reason is not one byte', t.offset);
      out.reason = t.value[0]!;
    } else if (t.tag === 0xbe) {
      const inner = readTlv(new Reader(t.value, t.valueOffset));
      if (inner.tag !== 0x04) fail('bad_tag', 'AP-2.11', 'user-information is not an OCTET STRING', t.offset);
      out.userInformation = readUserInformation(inner.value, inner.valueOffset);
    }
  }
  return out;
}

export function writeRelease(w: Writer, rel: Release): void {
  const body = new Writer();
  if (rel.reason !== undefined) writeTlv(body, 0x80, Uint8Array.of(rel.reason));
  if (rel.userInformation) writeTlv(body, 0xbe, tlv(0x04, encodeUserInformation(rel.userInformation)));
  writeTlv(w, rel.type === 'rlrq' ? RLRQ : RLRE, body.finish());
}
