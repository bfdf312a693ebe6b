// The `cmd` channel [MC-8], the one the service publishes on [MC-2.3]: a command out, its round trip
// waited for in PendingCommands, answered by the `reply` handler (reply.ts).

import { randomUUID } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { commandToWire, encode } from '../../../firmware-protocol/mqtt/codec.ts';
import { topicFor } from '../../../firmware-protocol/mqtt/topics.ts';
import type { MeterCommand } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import type { CommandOutcome } from '../types.ts';
import type { ChannelContext } from './context.ts';

/** [LEDGER-2] Twins never carry money: a credit without its ledger entry first would be money from nowhere. */
export const NO_CREDIT_OVER_TWINS: CommandOutcome = {
  ok: false,
  reason: 'rejected',
  code: 'unsupported',
  message: '[LEDGER-2] a recharge goes through the ledger (World.recharge), never straight to a meter',
};

/**
 * Sends `command` to `deviceId` over `client` and resolves with what became of it; offline at once when
 * the twin or the connection is. `tag` starts the id, so peers' replies are told apart (reply.ts).
 */
export function sendCommand(
  cx: ChannelContext,
  client: MqttClient | null,
  tag: string,
  deviceId: string,
  command: MeterCommand,
  timeoutMs: number,
): Promise<CommandOutcome> {
  if (!cx.get(deviceId)?.online || !client?.connected)
    return Promise.resolve({ ok: false, reason: 'offline' });
  // [MC-8.2] [MC-8.9] Unguessable (122 random bits): a meter cannot answer a command it never received.
  const id = `${tag}.${randomUUID()}`;
  return cx.pending.send(deviceId, id, command.op, timeoutMs, () =>
    client.publish(topicFor(deviceId, 'cmd'), encode('cmd', commandToWire(id, command)), { qos: 1 }),
  );
}
