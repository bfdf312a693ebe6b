// [CL-9.5, CL-9.6] Contract commands to DLMS requests for the bridge: the relay through disconnect
// control, a recharge through the credit object's update_amount, mode and tariffs through meterstack's
// Data objects, each only where the meter lists the object; `unsupported` (MC-8.3) naming what is missing
// otherwise. Pure: the bridge sends the request.

import type { Call } from '../../../firmware-protocol/dlms/client/calls.ts';
import { attribute } from '../../../firmware-protocol/dlms/client/calls.ts';
import { requestForCommand } from '../../../firmware-protocol/dlms/cosem/commands.ts';
import { findObject } from '../../../firmware-protocol/dlms/cosem/object-list.ts';
import type { AxdrType } from '../../../firmware-protocol/dlms/cosem/types.ts';
import type { CommandReply, MeterCommand } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import type { MeterModel } from './meter-model.ts';

export type Plan =
  | { kind: 'reply'; reply: CommandReply }
  | { kind: 'read' }
  | { kind: 'recharge'; call: Call; transactionId: string }
  | { kind: 'call'; call: Call };

const unsupported = (message: string): Plan => ({
  kind: 'reply',
  reply: { ok: false, error: { code: 'unsupported', message } },
});

/** [CL-9.5] What the bridge does for a command, given what the meter lists. */
export function planCommand(c: MeterCommand, m: MeterModel): Plan {
  if (c.op === 'read') return { kind: 'read' };
  if (c.op === 'set_wifi' || c.op === 'get_wifi')
    return unsupported('a DLMS meter has no WiFi: it is wired to the bridge');
  if (c.op === 'set_gateway') return unsupported('a DLMS meter has no payment gateway setting over DLMS');
  const request = requestForCommand(c);
  if (request === null) return unsupported(`${c.op} has no DLMS request [CO-10.5]`);
  if (!m.listed.has(request.obis)) {
    const what = findObject(request.obis)?.name ?? request.obis;
    return unsupported(`the meter lists no ${what} (${request.obis}): it cannot ${c.op} over DLMS`);
  }
  if (request.kind === 'action') {
    const def = findObject(request.obis)?.methods.find((x) => x.id === request.methodId);
    const call: Call = {
      kind: 'action',
      method: { classId: request.classId, instance: request.obis, methodId: request.methodId },
      parameters: intData(def?.param ?? 'integer', request.param),
    };
    if (c.op === 'recharge') return { kind: 'recharge', call, transactionId: c.transactionId };
    return { kind: 'call', call };
  }
  const def = findObject(request.obis)?.attributes.find((a) => a.id === 2);
  return {
    kind: 'call',
    call: {
      kind: 'set',
      attribute: attribute(request.classId, request.obis, 2),
      value: intData(def?.type ?? 'double-long-unsigned', request.value),
    },
  };
}

type IntType =
  | 'integer'
  | 'long'
  | 'double-long'
  | 'unsigned'
  | 'long-unsigned'
  | 'double-long-unsigned'
  | 'enum';
const INT_TYPES = new Set<AxdrType>([
  'integer',
  'long',
  'double-long',
  'unsigned',
  'long-unsigned',
  'double-long-unsigned',
  'enum',
]);

function intData(type: AxdrType, value: number) {
  const t: IntType = INT_TYPES.has(type) ? (type as IntType) : 'double-long';
  return { type: t, value };
}
