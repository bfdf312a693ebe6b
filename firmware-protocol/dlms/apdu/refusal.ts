// Which ExceptionResponse a server answers to an xDLMS APDU it cannot take [AP-8.2]. Association-level
// refusals are AARE results and diagnostics instead [AP-2.9].

import type { ExceptionResponse } from './apdu.ts';
import type { DecodeError } from './errors.ts';

/**
 * [AP-8.2] A service we do not offer (ciphered, short names, with-list SET, ACTION blocks, an unknown
 * tag) is service-unknown / service-not-supported; an APDU that breaks its own encoding is
 * service-not-allowed / operation-not-possible.
 */
export function exceptionFor(error: DecodeError): ExceptionResponse {
  if (error.code === 'unsupported' || (error.code === 'bad_tag' && error.rule === 'AP-1.2')) {
    return { type: 'exception-response', stateError: 2, serviceError: 2 };
  }
  return { type: 'exception-response', stateError: 1, serviceError: 1 };
}

/** [AP-8.2] An APDU longer than the max-receive-pdu-size the server announced. */
export const PDU_TOO_LONG: ExceptionResponse = { type: 'exception-response', stateError: 1, serviceError: 4 };
