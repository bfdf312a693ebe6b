// Association decisions from a table of AARQs [AP-2.12], and what a client reads from the AAREs
// [AP-2.13], through the real encoder and decoder.
import { describe, expect, it } from 'vitest';
import {
  type Aarq,
  APPLICATION_CONTEXT,
  associationRequest,
  DEFAULT_PROPOSED_CONFORMANCE,
  MECHANISM,
} from './aarq.ts';
import { decodeApdu, encodeApdu } from './apdu.ts';
import { type AssociationPolicy, answerAarq, associationOutcome } from './association.ts';
import { fromHex, toHex } from './axdr.ts';
import { loadVectors } from './golden/vectors.ts';

const policy: AssociationPolicy = {
  clients: { 16: { authentication: 'none' }, 32: { authentication: 'lls', password: 'ABCDEFGH' } },
  conformance: ['block-transfer-with-get-or-read', 'get', 'set', 'selective-access', 'action'],
  maxReceivePduSize: 512,
};
const pub = associationRequest();
const reader = associationRequest({ password: 'ABCDEFGH' });
const withUi = (a: Aarq, patch: object): Aarq =>
  a.userInformation?.kind === 'initiate-request'
    ? { ...a, userInformation: { ...a.userInformation, ...patch } }
    : a;

/** [rule, case, aarq, client SAP, accepted?, diagnostic, initiate error] */
const CASES: [string, string, Aarq, number, boolean, number, number?][] = [
  ['AP-2.10', 'the public client without security', pub, 16, true, 0],
  ['AP-2.10', 'the meter reader with its password', reader, 32, true, 0],
  ['AP-2.12', 'an unknown client SAP', pub, 48, false, 1],
  ['AP-2.12', 'short names', { ...pub, applicationContextName: APPLICATION_CONTEXT.sn }, 16, false, 2],
  [
    'AP-2.12',
    'a ciphered context',
    { ...pub, applicationContextName: APPLICATION_CONTEXT.lnCiphered },
    16,
    false,
    2,
  ],
  ['AP-2.12', 'HLS', { ...reader, mechanismName: MECHANISM.hlsGmac }, 32, false, 11],
  ['AP-2.12', 'a password to the public client', reader, 16, false, 11],
  ['AP-2.12', 'the meter reader without a password', pub, 32, false, 12],
  [
    'AP-2.12',
    'the meter reader with a wrong password',
    associationRequest({ password: 'ABCDEFGX' }),
    32,
    false,
    13,
  ],
  [
    'AP-2.12',
    'the meter reader with a longer password',
    associationRequest({ password: 'ABCDEFGHI' }),
    32,
    false,
    13,
  ],
  ['AP-2.12', 'dlms version 5', withUi(pub, { dlmsVersion: 5 }), 16, false, 1, 1],
  ['AP-2.12', 'max receive PDU size 11', withUi(pub, { maxReceivePduSize: 11 }), 16, false, 1, 3],
  ['AP-2.12', 'no conformance in common', withUi(pub, { conformance: ['write'] }), 16, false, 1, 2],
  ['AP-2.12', 'no user-information', { ...pub, userInformation: undefined }, 16, false, 1, 0],
];

describe('[AP-2.12] a server answers an AARQ', () => {
  it.each(CASES.map((c) => [`[${c[0]}] ${c[1]}`, c] as const))(
    '%s',
    (_name, [, , aarq, sap, accepted, diag, initErr]) => {
      const decoded = decodeApdu(encodeApdu(aarq));
      if (!decoded.ok || decoded.value.type !== 'aarq') throw new Error('AARQ did not round-trip');
      const d = answerAarq(decoded.value, sap, policy);
      expect(d.accepted).toBe(accepted);
      expect(d.aare.result).toBe(accepted ? 0 : 1);
      expect(d.aare.diagnostic).toEqual({ source: 'user', value: diag });
      const ui = d.aare.userInformation;
      if (initErr === undefined) expect(ui?.kind).toBe('initiate-response');
      else expect(ui).toEqual({ kind: 'confirmed-service-error', service: 1, error: 6, value: initErr });
      // The AARE encodes, decodes, and tells the client the same thing.
      const back = decodeApdu(encodeApdu(d.aare));
      if (!back.ok || back.value.type !== 'aare') throw new Error('AARE did not round-trip');
      expect(associationOutcome(back.value).ok).toBe(accepted);
    },
  );

  it('[AP-2.12] the accepted association has the common conformance and the client PDU size', () => {
    const d = answerAarq(reader, 32, policy);
    if (!d.accepted) throw new Error(d.reason);
    expect(d.conformance).toEqual(policy.conformance.filter((b) => DEFAULT_PROPOSED_CONFORMANCE.includes(b)));
    expect(d.clientMaxReceivePduSize).toBe(1200);
    expect(d.aare.mechanismName).toBe(MECHANISM.lls);
    expect(associationOutcome(d.aare)).toEqual({
      ok: true,
      conformance: d.conformance,
      serverMaxReceivePduSize: 512,
    });
  });

  it('[AP-2.12] the public LLS vector is accepted for a meter reader whose password is 12345678', () => {
    const v = loadVectors().apdu.find((x) => x.name.includes('password 12345678'))!;
    const r = decodeApdu(fromHex(v.hex));
    if (!r.ok || r.value.type !== 'aarq') throw new Error('decode');
    const d = answerAarq(r.value, 32, {
      ...policy,
      clients: { 32: { authentication: 'lls', password: '12345678' } },
    });
    expect(d.accepted).toBe(true);
    expect(toHex(encodeApdu(d.aare))).toMatch(/^61/);
  });
});

describe('[AP-2.13] a client reads the AARE', () => {
  it.each([
    ['accepted', true, /./],
    ['application-context-name-not-supported', false, /permanent\): application-context-name-not-supported/],
    ['dlms-version-too-low', false, /no-reason-given, initiate error 1/],
  ] as const)('the public AARE: %s', (key, ok, reason) => {
    const v = loadVectors().apdu.find((x) => x.name.includes('AARE') && x.name.includes(key))!;
    const r = decodeApdu(fromHex(v.hex));
    if (!r.ok || r.value.type !== 'aare') throw new Error('decode');
    const out = associationOutcome(r.value);
    expect(out.ok).toBe(ok);
    if (!out.ok) expect(out.reason).toMatch(reason);
  });
});

describe('[AP-2.12] a ciphered AARQ', () => {
  it('the public ciphered LLS AARQ decodes and is refused: application-context-name-not-supported', () => {
    const v = loadVectors().apdu.find((x) => x.name.includes('ciphered LN context'))!;
    const r = decodeApdu(fromHex(v.hex));
    if (!r.ok || r.value.type !== 'aarq') throw new Error('decode');
    const d = answerAarq(r.value, 32, {
      ...policy,
      clients: { 32: { authentication: 'lls', password: '12345678' } },
    });
    expect(d.accepted).toBe(false);
    expect(d.aare.diagnostic).toEqual({ source: 'user', value: 2 });
  });
});

describe('[AP-2.10][AP-2.12] the AARQs a Gurux client sends', () => {
  it.each([
    ['as the public client', 16],
    ['as the meter reader', 32],
  ] as const)('%s are accepted, with its PDU size 65535', (key, sap) => {
    const v = loadVectors().apdu.find((x) => x.name.includes(`AARQ of a Gurux client ${key}`))!;
    const r = decodeApdu(fromHex(v.hex));
    if (!r.ok || r.value.type !== 'aarq') throw new Error('decode');
    const d = answerAarq(r.value, sap, {
      ...policy,
      clients: { ...policy.clients, 32: { authentication: 'lls', password: '12345678' } },
    });
    expect(d).toMatchObject({ accepted: true, clientMaxReceivePduSize: 65535 });
  });
});
