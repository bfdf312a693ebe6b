// Sending a command to a meter on behalf of a v2 request, and turning every way it can fail into
// the one error list: offline, no answer in time, or refused by the meter.

import type { TwinRegistry } from '../../devices/twins.ts';
import type { TwinCommand } from '../../devices/types.ts';
import { ApiError, type ErrorCode } from '../../http/errors.ts';

export interface FailureCodes {
  offline: ErrorCode;
  timeout: ErrorCode;
}

const CONTROL: FailureCodes = { offline: 'device_offline', timeout: 'device_timeout' };

export async function operate(
  twins: TwinRegistry,
  deviceId: string,
  command: TwinCommand,
  codes: FailureCodes = CONTROL,
): Promise<unknown> {
  const outcome = await twins.command(deviceId, command);
  if (outcome.ok) return outcome.data;
  switch (outcome.reason) {
    case 'offline':
      throw new ApiError(codes.offline, `Device ${deviceId} is offline.`);
    case 'timeout':
      throw new ApiError(codes.timeout, `Device ${deviceId} did not answer within ${outcome.afterMs} ms.`);
    case 'rejected':
      if (outcome.code === 'invalid_argument') {
        throw ApiError.validation([{ loc: ['body'], msg: outcome.message }]);
      }
      throw new ApiError(
        'device_rejected',
        `Device ${deviceId} refused the operation (${outcome.code}): ${outcome.message}`,
      );
  }
}
