// The `reply` channel [MC-8]: a meter's answer to a command. An event, never retained (MC-2.7).

import type { Reply } from '../pending-commands.ts';
import { replyAtResolution, resolutionsOf } from '../resolution.ts';
import type { ChannelContext } from './context.ts';

/**
 * [MC-8.2] The ids this service sends: its registry's tag, a dot, a UUID. Several service processes
 * share a broker (issue 11 §4) and each sees every reply; a reply in this shape under another tag
 * answers a peer's command, not a meter's guess, and is none of this registry's business.
 */
const SERVICE_COMMAND_ID = /^([0-9a-f]{8})\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** [MC-8.9] A reply counts only from the device its command went to; `tag` is this registry's. */
export function onReply(cx: ChannelContext, deviceId: string, msg: Reply, tag: string): void {
  const sender = SERVICE_COMMAND_ID.exec(msg.id)?.[1];
  if (sender !== undefined && sender !== tag) {
    cx.counters.peerReplies.inc();
    return;
  }
  // [MC-4.4] A read's readings at the meter's resolution, as its samples are (telemetry.ts).
  const verdict = cx.pending.reply(deviceId, replyAtResolution(msg, resolutionsOf(cx.twin(deviceId).info)));
  if (verdict.ok) return;
  if (verdict.why === 'unmatched')
    cx.refusals.refuse(
      'unmatchedReply',
      deviceId,
      () => `reply ${msg.id} from ${deviceId} (no command waits for it)`,
    );
  else
    cx.refusals.refuse(
      'forgedReply',
      deviceId,
      () => `reply ${msg.id} from ${deviceId} to a command sent to ${verdict.to}`,
    );
}
