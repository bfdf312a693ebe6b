// One APDU in, one APDU out: the tagged union of every APDU this folder codes, the ExceptionResponse,
// and the entry points `decodeApdu` / `encodeApdu` [AP-1].

import { AARE, AARQ, type Aare, type Aarq, readAare, readAarq, writeAare, writeAarq } from './aarq.ts';
import {
  ACTION_REQUEST,
  ACTION_RESPONSE,
  type ActionRequest,
  type ActionResponse,
  readActionRequest,
  readActionResponse,
  writeActionRequest,
  writeActionResponse,
} from './action.ts';
import { Reader, Writer } from './axdr.ts';
import { attempt, fail, type Result } from './errors.ts';
import {
  GET_REQUEST,
  GET_RESPONSE,
  type GetRequest,
  type GetResponse,
  readGetRequest,
  readGetResponse,
  writeGetRequest,
  writeGetResponse,
} from './get.ts';
import { type Release, RLRE, RLRQ, readRelease, writeRelease } from './release.ts';
import {
  readSetRequest,
  readSetResponse,
  SET_REQUEST,
  SET_RESPONSE,
  type SetRequest,
  type SetResponse,
  writeSetRequest,
  writeSetResponse,
} from './set.ts';

export const EXCEPTION_RESPONSE = 0xd8;

/** [AP-8.1] ExceptionResponse: the server's answer to an APDU it cannot take at all. */
export interface ExceptionResponse {
  type: 'exception-response';
  /** 1 service-not-allowed, 2 service-unknown. */
  stateError: number;
  /** 1 operation-not-possible … 6 invocation-counter-error (errors.ts SERVICE_ERRORS). */
  serviceError: number;
  /** Only with invocation-counter-error. */
  invocationCounter?: number;
}

export type Apdu =
  | Aarq
  | Aare
  | Release
  | GetRequest
  | GetResponse
  | SetRequest
  | SetResponse
  | ActionRequest
  | ActionResponse
  | ExceptionResponse;

/** [AP-1.3] Tags of APDUs we recognise but do not decode (ciphered, short-name, notification). */
const NOT_SUPPORTED: Record<number, string> = {
  5: 'ReadRequest (short names)',
  6: 'WriteRequest (short names)',
  12: 'ReadResponse (short names)',
  13: 'WriteResponse (short names)',
  14: 'ConfirmedServiceError',
  15: 'DataNotification',
  24: 'UnconfirmedWriteRequest',
  33: 'glo-initiateRequest (ciphered)',
  194: 'EventNotificationRequest',
  200: 'glo-get-request (ciphered)',
  201: 'glo-set-request (ciphered)',
  203: 'glo-action-request (ciphered)',
  208: 'ded-get-request (ciphered)',
  219: 'general-glo-ciphering',
  220: 'general-ded-ciphering',
  224: 'general-block-transfer',
};

/**
 * Decodes one whole APDU [AP-1.1]. Never throws: a tagged result whose error names the rule broken, so
 * a server can answer with the right refusal [AP-1.3].
 */
export function decodeApdu(bytes: Uint8Array): Result<Apdu> {
  return attempt(() => {
    const r = new Reader(bytes);
    const tag = r.peek();
    if (tag === undefined) fail('truncated', 'AP-1.1', 'empty APDU', 0);
    let apdu: Apdu;
    switch (tag) {
      case AARQ:
        apdu = readAarq(r);
        break;
      case AARE:
        apdu = readAare(r);
        break;
      case RLRQ:
      case RLRE:
        apdu = readRelease(r);
        break;
      default:
        r.u8();
        apdu = readXdlms(r, tag);
    }
    r.end('APDU');
    return apdu;
  });
}

function readXdlms(r: Reader, tag: number): Apdu {
  switch (tag) {
    case GET_REQUEST:
      return readGetRequest(r);
    case GET_RESPONSE:
      return readGetResponse(r);
    case SET_REQUEST:
      return readSetRequest(r);
    case SET_RESPONSE:
      return readSetResponse(r);
    case ACTION_REQUEST:
      return readActionRequest(r);
    case ACTION_RESPONSE:
      return readActionResponse(r);
    case EXCEPTION_RESPONSE: {
      const stateError = r.u8('state-error');
      const serviceError = r.u8('service-error');
      // [AP-8.1] invocation-counter-error carries the expected counter.
      if (serviceError !== 6) return { type: 'exception-response', stateError, serviceError };
      return {
        type: 'exception-response',
        stateError,
        serviceError,
        invocationCounter: r.u32('invocation counter'),
      };
    }
    default: {
      const known = NOT_SUPPORTED[tag];
      if (known) return fail('unsupported', 'AP-1.3', `${known} (tag 0x${tag.toString(16)})`, 0);
      return fail('bad_tag', 'AP-1.2', `APDU tag 0x${tag.toString(16)}`, 0);
    }
  }
}

/** Encodes one APDU. Throws RangeError on a value the encoding cannot hold (a caller's bug, not input). */
export function encodeApdu(apdu: Apdu): Uint8Array {
  const w = new Writer();
  switch (apdu.type) {
    case 'aarq':
      writeAarq(w, apdu);
      break;
    case 'aare':
      writeAare(w, apdu);
      break;
    case 'rlrq':
    case 'rlre':
      writeRelease(w, apdu);
      break;
    case 'get-request-normal':
    case 'get-request-next':
    case 'get-request-with-list':
      writeGetRequest(w, apdu);
      break;
    case 'get-response-normal':
    case 'get-response-with-datablock':
    case 'get-response-with-list':
      writeGetResponse(w, apdu);
      break;
    case 'set-request-normal':
    case 'set-request-with-first-datablock':
    case 'set-request-with-datablock':
      writeSetRequest(w, apdu);
      break;
    case 'set-response-normal':
    case 'set-response-datablock':
    case 'set-response-last-datablock':
      writeSetResponse(w, apdu);
      break;
    case 'action-request-normal':
      writeActionRequest(w, apdu);
      break;
    case 'action-response-normal':
      writeActionResponse(w, apdu);
      break;
    case 'exception-response':
      w.u8(EXCEPTION_RESPONSE).u8(apdu.stateError).u8(apdu.serviceError);
      if (apdu.serviceError === 6) w.u32(apdu.invocationCounter ?? 0);
      break;
  }
  return w.finish();
}
