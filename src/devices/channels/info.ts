// The `info` channel [MC-4]: what a meter is (model, firmware, relay, period, serial). Retained.

import type { InfoPayload } from '../../../firmware-protocol/mqtt/schemas.ts';
import { infoChanges, replacedSerial } from '../twin-events.ts';
import type { ChannelContext } from './context.ts';

/** [MC-1.4] The topic names the device; an info that names another is refused. */
export function onInfo(cx: ChannelContext, deviceId: string, info: InfoPayload): void {
  if (info.device_id !== deviceId) {
    cx.refusals.refuse(
      'infoDeviceMismatch',
      deviceId,
      () => `info on ${deviceId}'s topic naming device ${info.device_id}`,
    );
    return;
  }
  const twin = cx.twin(deviceId);
  const changed = infoChanges(twin.info, info);
  const replaced = replacedSerial(twin.info, info); // [MC-4.5]
  if (replaced) cx.bus.emit('meter.replaced', replaced, cx.ctx(deviceId));
  twin.info = info;
  cx.reports?.mark(deviceId);
  if (changed.length === 0) return;
  const { model, firmware, has_relay, telemetry_period_s } = info;
  cx.bus.emit('meter.info', { model, firmware, has_relay, telemetry_period_s, changed }, cx.ctx(deviceId));
}
