// AARQ and AARE: the ACSE association request and response, BER-encoded, with the xDLMS initiate in
// their user-information [AP-2]. Logical-name referencing, lowest-level and low-level security (a
// password), as IS 15959 Part 2 associations use.

import { Reader, Writer } from './axdr.ts';
import { decodeOid, encodeOid, readTlv, readTlvs, type Tlv, writeTlv } from './ber.ts';
import { fail } from './errors.ts';
import {
  type ConformanceBit,
  encodeUserInformation,
  readUserInformation,
  type UserInformation,
} from './initiate.ts';

export const AARQ = 0x60;
export const AARE = 0x61;

/** [AP-2.3] Application context names. Only `ln` (no ciphering) is served. */
export const APPLICATION_CONTEXT = {
  ln: '2.16.756.5.8.1.1',
  sn: '2.16.756.5.8.1.2',
  lnCiphered: '2.16.756.5.8.1.3',
  snCiphered: '2.16.756.5.8.1.4',
} as const;

/** [AP-2.4] Authentication mechanism names; lowest-level security may also send no mechanism at all. */
export const MECHANISM = {
  lowest: '2.16.756.5.8.2.0',
  lls: '2.16.756.5.8.2.1',
  hls: '2.16.756.5.8.2.2',
  hlsMd5: '2.16.756.5.8.2.3',
  hlsSha1: '2.16.756.5.8.2.4',
  hlsGmac: '2.16.756.5.8.2.5',
  hlsSha256: '2.16.756.5.8.2.6',
  hlsEcdsa: '2.16.756.5.8.2.7',
} as const;

/** [AP-2.9] Association result. */
export const ASSOCIATION_RESULT = { accepted: 0, rejectedPermanent: 1, rejectedTransient: 2 } as const;

/** [AP-2.9] acse-service-user diagnostics. */
export const ACSE_USER_DIAGNOSTIC = {
  null: 0,
  noReasonGiven: 1,
  applicationContextNameNotSupported: 2,
  authenticationMechanismNameNotRecognised: 11,
  authenticationMechanismNameRequired: 12,
  authenticationFailure: 13,
  authenticationRequired: 14,
} as const;

/** [AP-2.10] IS 15959 Part 2 client SAPs: the public client without security, the meter reader with LLS. */
export const CLIENT_SAP = { public: 16, meterReader: 32 } as const;

export interface Aarq {
  type: 'aarq';
  applicationContextName: string;
  callingApTitle?: Uint8Array;
  /** sender-acse-requirements with the authentication bit set. */
  authentication: boolean;
  mechanismName?: string;
  /** The LLS password (charstring). */
  callingAuthenticationValue?: Uint8Array;
  userInformation?: UserInformation;
}

export interface Aare {
  type: 'aare';
  applicationContextName: string;
  result: number;
  diagnostic: { source: 'user' | 'provider'; value: number };
  respondingApTitle?: Uint8Array;
  authentication: boolean;
  mechanismName?: string;
  respondingAuthenticationValue?: Uint8Array;
  userInformation?: UserInformation;
}

const AUTH_BITS = Uint8Array.from([0x07, 0x80]);

/** The one TLV a constructed field wraps, which must fill it [AX-1.5]. */
function expectOne(t: Tlv, tag: number, what: string): Tlv {
  const r = new Reader(t.value, t.valueOffset);
  const inner = readTlv(r);
  r.end(what);
  if (inner.tag !== tag)
    fail('bad_tag', 'AP-2.1', `${what}: inner tag 0x${inner.tag.toString(16)}`, t.offset);
  return inner;
}

function readInteger(t: Tlv, what: string): number {
  const v = expectOne(t, 0x02, what).value;
  if (v.length !== 1) fail('bad_value', 'AP-2.9', `${what}: INTEGER of ${v.length} bytes`, t.offset);
  return v[0]!;
}

function readAuthBits(t: Tlv): boolean {
  // [AP-2.4] BIT STRING: unused-bits count, then the bits; bit 0 is authentication.
  if (t.value.length < 2) fail('bad_value', 'AP-2.4', 'acse-requirements too short', t.offset);
  return (t.value[1]! & 0x80) !== 0;
}

function contextName(t: Tlv): string {
  const inner = expectOne(t, 0x06, 'application-context-name');
  return decodeOid(inner.value, inner.valueOffset);
}

function readUserInfoTlv(t: Tlv): UserInformation {
  const inner = expectOne(t, 0x04, 'user-information');
  return readUserInformation(inner.value, inner.valueOffset);
}

/** Splits an ACSE APDU into its fields, checking the outer tag and that it fills the input [AP-2.1]. */
function fields(r: Reader, tag: number, name: string): Tlv[] {
  const at = r.offset;
  const outer = readTlv(r);
  if (outer.tag !== tag) fail('bad_tag', 'AP-2.1', `${name}: tag 0x${outer.tag.toString(16)}`, at);
  return readTlvs(outer);
}

export function readAarq(r: Reader): Aarq {
  const out: Aarq = { type: 'aarq', applicationContextName: '', authentication: false };
  let sawContext = false;
  for (const t of fields(r, AARQ, 'AARQ')) {
    switch (t.tag) {
      case 0xa1:
        out.applicationContextName = contextName(t);
        sawContext = true;
        break;
      case 0xa6:
        out.callingApTitle = expectOne(t, 0x04, 'calling-AP-title').value;
        break;
      case 0x8a:
        out.authentication = readAuthBits(t);
        break;
      case 0x8b:
        out.mechanismName = decodeOid(t.value, t.valueOffset);
        break;
      case 0xac:
        out.callingAuthenticationValue = expectOne(t, 0x80, 'calling-authentication-value').value;
        break;
      case 0xbe:
        out.userInformation = readUserInfoTlv(t);
        break;
      default:
        // [AP-2.1] Fields we do not use (protocol-version, called titles, implementation-information) are skipped.
        break;
    }
  }
  if (!sawContext) fail('bad_value', 'AP-2.3', 'AARQ without application-context-name', 0);
  return out;
}

export function writeAarq(w: Writer, a: Aarq): void {
  const body = new Writer();
  writeTlv(body, 0xa1, tlv(0x06, encodeOid(a.applicationContextName)));
  if (a.callingApTitle) writeTlv(body, 0xa6, tlv(0x04, a.callingApTitle));
  if (a.authentication) writeTlv(body, 0x8a, AUTH_BITS);
  if (a.mechanismName) writeTlv(body, 0x8b, encodeOid(a.mechanismName));
  if (a.callingAuthenticationValue) writeTlv(body, 0xac, tlv(0x80, a.callingAuthenticationValue));
  if (a.userInformation) writeTlv(body, 0xbe, tlv(0x04, encodeUserInformation(a.userInformation)));
  writeTlv(w, AARQ, body.finish());
}

export function readAare(r: Reader): Aare {
  const out: Aare = {
    type: 'aare',
    applicationContextName: '',
    result: -1,
    diagnostic: { source: 'user', value: -1 },
    authentication: false,
  };
  for (const t of fields(r, AARE, 'AARE')) {
    switch (t.tag) {
      case 0xa1:
        out.applicationContextName = contextName(t);
        break;
      case 0xa2:
        out.result = readInteger(t, 'result');
        break;
      case 0xa3: {
        const inner = readTlv(new Reader(t.value, t.valueOffset));
        if (inner.tag !== 0xa1 && inner.tag !== 0xa2)
          fail('bad_tag', 'AP-2.9', 'result-source-diagnostic', t.offset);
        const value = readInteger(inner, 'result-source-diagnostic');
        out.diagnostic = { source: inner.tag === 0xa1 ? 'user' : 'provider', value };
        break;
      }
      case 0xa4:
        out.respondingApTitle = expectOne(t, 0x04, 'responding-AP-title').value;
        break;
      case 0x88:
        out.authentication = readAuthBits(t);
        break;
      case 0x89:
        out.mechanismName = decodeOid(t.value, t.valueOffset);
        break;
      case 0xaa:
        out.respondingAuthenticationValue = expectOne(t, 0x80, 'responding-authentication-value').value;
        break;
      case 0xbe:
        out.userInformation = readUserInfoTlv(t);
        break;
      default:
        break;
    }
  }
  if (!out.applicationContextName || out.result < 0 || out.diagnostic.value < 0) {
    fail('bad_value', 'AP-2.9', 'AARE without application-context-name, result or diagnostic', 0);
  }
  return out;
}

export function writeAare(w: Writer, a: Aare): void {
  const body = new Writer();
  writeTlv(body, 0xa1, tlv(0x06, encodeOid(a.applicationContextName)));
  writeTlv(body, 0xa2, tlv(0x02, Uint8Array.of(a.result)));
  writeTlv(
    body,
    0xa3,
    tlv(a.diagnostic.source === 'user' ? 0xa1 : 0xa2, tlv(0x02, Uint8Array.of(a.diagnostic.value))),
  );
  if (a.respondingApTitle) writeTlv(body, 0xa4, tlv(0x04, a.respondingApTitle));
  if (a.authentication) writeTlv(body, 0x88, AUTH_BITS);
  if (a.mechanismName) writeTlv(body, 0x89, encodeOid(a.mechanismName));
  if (a.respondingAuthenticationValue) writeTlv(body, 0xaa, tlv(0x80, a.respondingAuthenticationValue));
  if (a.userInformation) writeTlv(body, 0xbe, tlv(0x04, encodeUserInformation(a.userInformation)));
  writeTlv(w, AARE, body.finish());
}

export function tlv(tag: number, value: Uint8Array): Uint8Array {
  const w = new Writer();
  writeTlv(w, tag, value);
  return w.finish();
}

/** [AP-2.7] What a client proposes by default: the conformance of the Green Book's example AARQ. */
export const DEFAULT_PROPOSED_CONFORMANCE: ConformanceBit[] = [
  'priority-mgmt-supported',
  'attribute0-supported-with-get',
  'block-transfer-with-get-or-read',
  'block-transfer-with-set-or-write',
  'block-transfer-with-action',
  'multiple-references',
  'get',
  'set',
  'selective-access',
  'event-notification',
  'action',
];

/**
 * [AP-2.10] The AARQ of an IS 15959 association: the public client (no password: lowest-level
 * security) or the meter reader (LLS with its password).
 */
export function associationRequest(options: { password?: string; maxReceivePduSize?: number } = {}): Aarq {
  const ui: UserInformation = {
    kind: 'initiate-request',
    responseAllowed: true,
    dlmsVersion: 6,
    conformance: DEFAULT_PROPOSED_CONFORMANCE,
    maxReceivePduSize: options.maxReceivePduSize ?? 1200,
  };
  if (options.password === undefined) {
    return {
      type: 'aarq',
      applicationContextName: APPLICATION_CONTEXT.ln,
      authentication: false,
      userInformation: ui,
    };
  }
  return {
    type: 'aarq',
    applicationContextName: APPLICATION_CONTEXT.ln,
    authentication: true,
    mechanismName: MECHANISM.lls,
    callingAuthenticationValue: new TextEncoder().encode(options.password),
    userInformation: ui,
  };
}
