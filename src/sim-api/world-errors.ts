// A WorldError in the envelope's words, for /sim/v1 and the fleet workers' routes alike.

import { ApiError } from '../http/errors.ts';
import { WorldError } from '../world/types.ts';

export function mapWorldError(err: unknown): never {
  if (err instanceof WorldError) {
    if (err.kind === 'conflict') throw new ApiError('conflict', err.message);
    if (err.kind === 'not_found') throw new ApiError('not_found', err.message);
    // validation_error's detail is always {loc, msg} items (src/http/validation.ts).
    throw ApiError.validation([{ loc: ['body'], msg: err.message }]);
  }
  throw err;
}
