// Deciding an association, both sides, as pure functions: a server's AARE for an AARQ under IS 15959's
// client SAPs [AP-2.12], and what a client learns from the AARE [AP-2.13].

import { type Aare, type Aarq, ACSE_USER_DIAGNOSTIC, APPLICATION_CONTEXT, MECHANISM } from './aarq.ts';
import type { ConformanceBit, UserInformation } from './initiate.ts';

/** What a server asks of one client SAP: nothing (lowest-level security), or an LLS password. */
export type ClientAuthentication = { authentication: 'none' } | { authentication: 'lls'; password: string };

export interface AssociationPolicy {
  /** By client SAP; IS 15959: 16 public (none), 32 meter reader (lls) [AP-2.10]. */
  clients: Readonly<Record<number, ClientAuthentication>>;
  /** What the server offers; the association gets what both sides have. */
  conformance: readonly ConformanceBit[];
  /** The server's own max receive PDU size. */
  maxReceivePduSize: number;
}

export type AssociationDecision =
  | {
      accepted: true;
      aare: Aare;
      conformance: ConformanceBit[];
      /** The longest APDU the server may send: the client's max receive PDU size [AP-5.5]. */
      clientMaxReceivePduSize: number;
    }
  | { accepted: false; aare: Aare /** Why, for the log. */; reason: string };

/** [AP-2.8] The smallest max receive PDU size a server accepts. */
export const MIN_PDU_SIZE = 12;

const INITIATE_ERROR = {
  other: 0,
  dlmsVersionTooLow: 1,
  incompatibleConformance: 2,
  pduSizeTooShort: 3,
} as const;

/** [AP-2.12] The server's answer to an AARQ from `clientSap`. */
export function answerAarq(aarq: Aarq, clientSap: number, policy: AssociationPolicy): AssociationDecision {
  const client = policy.clients[clientSap];
  const initiate: UserInformation = {
    kind: 'initiate-response',
    dlmsVersion: 6,
    conformance: [...policy.conformance],
    maxReceivePduSize: policy.maxReceivePduSize,
    vaaName: 7,
  };
  const reject = (value: number, reason: string, ui: UserInformation = initiate): AssociationDecision => ({
    accepted: false,
    reason,
    aare: {
      type: 'aare',
      applicationContextName: APPLICATION_CONTEXT.ln,
      result: 1,
      diagnostic: { source: 'user', value },
      authentication: false,
      userInformation: ui,
    },
  });
  const initiateError = (value: number, reason: string) =>
    reject(ACSE_USER_DIAGNOSTIC.noReasonGiven, reason, {
      kind: 'confirmed-service-error',
      service: 1,
      error: 6,
      value,
    });

  if (!client)
    return reject(ACSE_USER_DIAGNOSTIC.noReasonGiven, `no association for client SAP ${clientSap}`);
  if (aarq.applicationContextName !== APPLICATION_CONTEXT.ln) {
    return reject(
      ACSE_USER_DIAGNOSTIC.applicationContextNameNotSupported,
      `application context ${aarq.applicationContextName}: only logical names without ciphering`,
    );
  }
  const mechanism = aarq.mechanismName ?? MECHANISM.lowest;
  if (mechanism !== MECHANISM.lowest && mechanism !== MECHANISM.lls) {
    return reject(
      ACSE_USER_DIAGNOSTIC.authenticationMechanismNameNotRecognised,
      `mechanism ${mechanism} not supported`,
    );
  }
  if (client.authentication === 'none' && mechanism !== MECHANISM.lowest) {
    return reject(
      ACSE_USER_DIAGNOSTIC.authenticationMechanismNameNotRecognised,
      `client SAP ${clientSap} takes no password`,
    );
  }
  if (client.authentication === 'lls') {
    if (mechanism !== MECHANISM.lls) {
      return reject(
        ACSE_USER_DIAGNOSTIC.authenticationMechanismNameRequired,
        `client SAP ${clientSap} needs LLS`,
      );
    }
    const given = aarq.callingAuthenticationValue;
    const expected = new TextEncoder().encode(client.password);
    if (!given || !sameBytes(given, expected)) {
      return reject(ACSE_USER_DIAGNOSTIC.authenticationFailure, `wrong password for client SAP ${clientSap}`);
    }
  }
  const ui = aarq.userInformation;
  if (ui?.kind !== 'initiate-request')
    return initiateError(INITIATE_ERROR.other, 'no InitiateRequest (ciphered?)');
  if (ui.dlmsVersion < 6)
    return initiateError(INITIATE_ERROR.dlmsVersionTooLow, `dlms version ${ui.dlmsVersion}`);
  if (ui.maxReceivePduSize !== 0 && ui.maxReceivePduSize < MIN_PDU_SIZE) {
    return initiateError(INITIATE_ERROR.pduSizeTooShort, `max receive PDU size ${ui.maxReceivePduSize}`);
  }
  const conformance = policy.conformance.filter((bit) => ui.conformance.includes(bit));
  if (conformance.length === 0)
    return initiateError(INITIATE_ERROR.incompatibleConformance, 'no conformance in common');
  const lls = client.authentication === 'lls';
  return {
    accepted: true,
    conformance,
    // [AP-2.12] 0 means "no limit" in the InitiateRequest; 65535 is the most a uint16 can say anyway.
    clientMaxReceivePduSize: ui.maxReceivePduSize === 0 ? 0xffff : ui.maxReceivePduSize,
    aare: {
      type: 'aare',
      applicationContextName: APPLICATION_CONTEXT.ln,
      result: 0,
      diagnostic: { source: 'user', value: ACSE_USER_DIAGNOSTIC.null },
      authentication: lls,
      ...(lls ? { mechanismName: MECHANISM.lls } : {}),
      userInformation: { ...initiate, conformance },
    },
  };
}

/** Compares every byte, so the time taken does not say how much of a password was right. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

const DIAGNOSTIC_NAMES: Record<number, string> = {
  0: 'null',
  1: 'no-reason-given',
  2: 'application-context-name-not-supported',
  11: 'authentication-mechanism-name-not-recognised',
  12: 'authentication-mechanism-name-required',
  13: 'authentication-failure',
  14: 'authentication-required',
};

export type AssociationOutcome =
  | {
      ok: true;
      conformance: ConformanceBit[] /** The longest APDU the client may send. */;
      serverMaxReceivePduSize: number;
    }
  | { ok: false; reason: string };

/** [AP-2.13] What a client learns from an AARE: the negotiated terms, or why it was refused. */
export function associationOutcome(aare: Aare): AssociationOutcome {
  const ui = aare.userInformation;
  if (aare.result !== 0) {
    const name =
      aare.diagnostic.source === 'user'
        ? (DIAGNOSTIC_NAMES[aare.diagnostic.value] ?? `${aare.diagnostic.value}`)
        : `provider ${aare.diagnostic.value}`;
    const extra = ui?.kind === 'confirmed-service-error' ? `, initiate error ${ui.value}` : '';
    return {
      ok: false,
      reason: `association rejected (${aare.result === 1 ? 'permanent' : 'transient'}): ${name}${extra}`,
    };
  }
  if (ui?.kind !== 'initiate-response')
    return { ok: false, reason: 'association accepted without an InitiateResponse' };
  return {
    ok: true,
    conformance: ui.conformance,
    serverMaxReceivePduSize: ui.maxReceivePduSize === 0 ? 0xffff : ui.maxReceivePduSize,
  };
}
