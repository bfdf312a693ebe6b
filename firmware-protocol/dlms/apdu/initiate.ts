// The xDLMS InitiateRequest and InitiateResponse carried in the AARQ's and AARE's user-information, the
// conformance block, and the ConfirmedServiceError an AARE may carry instead [AP-2.5 – AP-2.8].

import { Reader, Writer } from './axdr.ts';
import { readPresence } from './cosem.ts';
import { fail } from './errors.ts';

/** [AP-2.7] Conformance block bits, bit 0 first (the most significant bit of the first byte). */
export const CONFORMANCE_BITS = [
  'reserved-zero',
  'general-protection',
  'general-block-transfer',
  'read',
  'write',
  'unconfirmed-write',
  'delta-value-encoding',
  'reserved-seven',
  'attribute0-supported-with-set',
  'priority-mgmt-supported',
  'attribute0-supported-with-get',
  'block-transfer-with-get-or-read',
  'block-transfer-with-set-or-write',
  'block-transfer-with-action',
  'multiple-references',
  'information-report',
  'data-notification',
  'access',
  'parameterized-access',
  'get',
  'set',
  'selective-access',
  'event-notification',
  'action',
] as const;
export type ConformanceBit = (typeof CONFORMANCE_BITS)[number];

export interface InitiateRequest {
  kind: 'initiate-request';
  dedicatedKey?: Uint8Array;
  /** DEFAULT TRUE. */
  responseAllowed: boolean;
  proposedQualityOfService?: number;
  dlmsVersion: number;
  conformance: ConformanceBit[];
  maxReceivePduSize: number;
}

export interface InitiateResponse {
  kind: 'initiate-response';
  negotiatedQualityOfService?: number;
  dlmsVersion: number;
  conformance: ConformanceBit[];
  maxReceivePduSize: number;
  /** 0x0007 for logical names [AP-2.6]. */
  vaaName: number;
}

/** [AP-2.8] ConfirmedServiceError, e.g. initiateError / initiate / dlms-version-too-low = 0E 01 06 01. */
export interface ConfirmedServiceError {
  kind: 'confirmed-service-error';
  /** 1 = initiateError. */
  service: number;
  /** 6 = initiate. */
  error: number;
  /** For initiate: 0 other, 1 dlms-version-too-low, 2 incompatible-conformance, 3 pdu-size-too-short, 4 refused-by-the-VDE-handler. */
  value: number;
}

/** What the user-information of an AARQ, AARE, RLRQ or RLRE held; `other` for what we do not decode (ciphered initiates) [AP-2.5]. */
export type UserInformation =
  | InitiateRequest
  | InitiateResponse
  | ConfirmedServiceError
  | { kind: 'other'; raw: Uint8Array };

const CONFORMANCE_TAG = [0x5f, 0x1f];

function readConformance(r: Reader): ConformanceBit[] {
  const at = r.offset;
  const t0 = r.u8('conformance tag');
  const t1 = r.u8('conformance tag');
  const len = r.u8('conformance length');
  const unused = r.u8('conformance unused bits');
  if (t0 !== 0x5f || t1 !== 0x1f || len !== 4 || unused !== 0) {
    fail('bad_value', 'AP-2.7', 'conformance block is not 5F 1F 04 00 + 3 bytes', at);
  }
  const bits = (r.u8() << 16) | (r.u8() << 8) | r.u8();
  return CONFORMANCE_BITS.filter((_, i) => (bits >> (23 - i)) & 1);
}

function writeConformance(w: Writer, names: readonly ConformanceBit[]): void {
  let bits = 0;
  for (const n of names) {
    const i = CONFORMANCE_BITS.indexOf(n);
    if (i < 0) throw new RangeError(`conformance bit ${n}`);
    bits |= 1 << (23 - i);
  }
  w.bytes(Uint8Array.from(CONFORMANCE_TAG))
    .u8(4)
    .u8(0)
    .u8(bits >> 16)
    .u8(bits >> 8)
    .u8(bits);
}

/** Decodes user-information content (the octets inside BE 10 04 0E ...). Throws DecodeFailure. */
export function readUserInformation(bytes: Uint8Array, base = 0): UserInformation {
  const r = new Reader(bytes, base);
  const tag = r.u8('xDLMS APDU tag');
  let out: UserInformation;
  if (tag === 0x01) {
    const dedicated = readPresence(r, 'dedicated-key')
      ? r.take(r.boundedLength('dedicated-key length'))
      : undefined;
    const responseAllowed = readPresence(r, 'response-allowed') ? r.u8('response-allowed') !== 0 : true;
    const qos = readPresence(r, 'proposed-quality-of-service') ? r.i8() : undefined;
    const dlmsVersion = r.u8('dlms version');
    const conformance = readConformance(r);
    out = {
      kind: 'initiate-request',
      ...(dedicated ? { dedicatedKey: dedicated } : {}),
      responseAllowed,
      ...(qos !== undefined ? { proposedQualityOfService: qos } : {}),
      dlmsVersion,
      conformance,
      maxReceivePduSize: r.u16('max receive pdu size'),
    };
  } else if (tag === 0x08) {
    const qos = readPresence(r, 'negotiated-quality-of-service') ? r.i8() : undefined;
    const dlmsVersion = r.u8('dlms version');
    const conformance = readConformance(r);
    const maxReceivePduSize = r.u16('max receive pdu size');
    out = {
      kind: 'initiate-response',
      ...(qos !== undefined ? { negotiatedQualityOfService: qos } : {}),
      dlmsVersion,
      conformance,
      maxReceivePduSize,
      vaaName: r.u16('vaa-name'),
    };
  } else if (tag === 0x0e) {
    out = { kind: 'confirmed-service-error', service: r.u8(), error: r.u8(), value: r.u8() };
  } else {
    return { kind: 'other', raw: bytes.slice() };
  }
  r.end('user-information');
  return out;
}

export function encodeUserInformation(u: UserInformation): Uint8Array {
  const w = new Writer();
  switch (u.kind) {
    case 'initiate-request':
      w.u8(0x01);
      if (u.dedicatedKey) w.u8(1).length(u.dedicatedKey.length).bytes(u.dedicatedKey);
      else w.u8(0);
      // [AP-2.5] DEFAULT TRUE is written as absent.
      if (u.responseAllowed) w.u8(0);
      else w.u8(1).u8(0);
      if (u.proposedQualityOfService !== undefined) w.u8(1).u8(u.proposedQualityOfService);
      else w.u8(0);
      w.u8(u.dlmsVersion);
      writeConformance(w, u.conformance);
      w.u16(u.maxReceivePduSize);
      break;
    case 'initiate-response':
      w.u8(0x08);
      if (u.negotiatedQualityOfService !== undefined) w.u8(1).u8(u.negotiatedQualityOfService);
      else w.u8(0);
      w.u8(u.dlmsVersion);
      writeConformance(w, u.conformance);
      w.u16(u.maxReceivePduSize).u16(u.vaaName);
      break;
    case 'confirmed-service-error':
      w.u8(0x0e).u8(u.service).u8(u.error).u8(u.value);
      break;
    case 'other':
      w.bytes(u.raw);
      break;
  }
  return w.finish();
}
