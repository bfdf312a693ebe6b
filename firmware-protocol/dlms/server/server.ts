// [AS-1] The COSEM application server as a pure function: (session, client SAP, one APDU, the meter view)
// -> the next session and either the response APDU or a contract command for the caller to apply, whose
// reply `answerCommand` turns into the response. No I/O, no clock: time comes in the view.

import type { CommandReply, MeterCommand } from '../../mqtt/vocabulary.ts';
import type { ActionRequest } from '../apdu/action.ts';
import { type Apdu, decodeApdu, encodeApdu } from '../apdu/apdu.ts';
import { answerAarq } from '../apdu/association.ts';
import { type Assembly, acceptBlock, getListResponses, getResponses, startAssembly } from '../apdu/blocks.ts';
import type { AccessSelection, AttributeDescriptor, GetDataResult, Invoke } from '../apdu/cosem.ts';
import { type Data, decodeData } from '../apdu/data.ts';
import { DAR } from '../apdu/errors.ts';
import type { GetRequest, GetResponse } from '../apdu/get.ts';
import type { ConformanceBit } from '../apdu/initiate.ts';
import { exceptionFor, PDU_TOO_LONG } from '../apdu/refusal.ts';
import type { SetRequest } from '../apdu/set.ts';
import { commandForAction, commandForSet, type Refusal } from '../cosem/commands.ts';
import type { ReadContext } from './attributes.ts';
import { findAttribute, findMethod, getAttribute } from './resolve.ts';
import type { AssociationInForce, MeterView, ServerConfig } from './view.ts';

/** [AS-2.3] What the server offers: GET (with blocks, with-list, by range), SET (with blocks), ACTION. */
export const SERVER_CONFORMANCE: readonly ConformanceBit[] = [
  'block-transfer-with-get-or-read',
  'block-transfer-with-set-or-write',
  'multiple-references',
  'get',
  'set',
  'selective-access',
  'action',
];

export interface Session {
  readonly association: AssociationInForce | null;
  /** [AS-6.2] The blocks of a long GET response not yet asked for, and the number of the last sent. */
  readonly blocks: readonly GetResponse[];
  readonly lastBlock: number;
  /** [AS-7.3] A SET value arriving in blocks. */
  readonly setBlocks: { attribute: AttributeDescriptor; access?: AccessSelection; assembly: Assembly } | null;
  /** Recharges made over this session, to name each one [AS-7.4]. */
  readonly recharges: number;
}

export const NEW_SESSION: Session = {
  association: null,
  blocks: [],
  lastBlock: 0,
  setBlocks: null,
  recharges: 0,
};

/** A command waiting for the meter's reply, and how to answer once it comes [AS-7.2]. */
export type PendingCommand =
  | { via: 'set'; invoke: Invoke }
  | { via: 'set-last-block'; invoke: Invoke; blockNumber: number }
  | { via: 'action'; invoke: Invoke };

export type ServeResult =
  | { kind: 'reply'; session: Session; apdu: Uint8Array; refusal?: string }
  | { kind: 'command'; session: Session; command: MeterCommand; pending: PendingCommand };

const REFUSAL_RESULT: Record<Refusal['refused'], number> = {
  'object-undefined': DAR.objectUndefined,
  'type-unmatched': DAR.typeUnmatched,
  'other-reason': DAR.otherReason,
};

/** [AS-1.1] Serves one request APDU from `clientSap`. */
export function serve(
  config: ServerConfig,
  session: Session,
  clientSap: number,
  bytes: Uint8Array,
  view: MeterView,
): ServeResult {
  const reply = (apdu: Apdu, s: Session = session, refusal?: string): ServeResult => ({
    kind: 'reply',
    session: s,
    apdu: encodeApdu(apdu),
    ...(refusal ? { refusal } : {}),
  });
  // [AS-1.3] Longer than announced: pdu-too-long, before decoding.
  if (bytes.length > config.maxReceivePduSize)
    return reply(PDU_TOO_LONG, session, `APDU of ${bytes.length} bytes`);
  const decoded = decodeApdu(bytes);
  if (!decoded.ok) {
    const e = decoded.error;
    return reply(exceptionFor(e), session, `${e.code} [${e.rule}] ${e.message}`);
  }
  const apdu = decoded.value;
  switch (apdu.type) {
    case 'aarq': {
      // [AS-2.2] A new AARQ replaces whatever association there was, accepted or not.
      const policy = {
        clients: {
          16: { authentication: 'none' as const },
          32: { authentication: 'lls' as const, password: config.readerPassword },
        },
        conformance: SERVER_CONFORMANCE,
        maxReceivePduSize: config.maxReceivePduSize,
      };
      const d = answerAarq(apdu, clientSap, policy);
      if (!d.accepted) return reply(d.aare, NEW_SESSION, d.reason);
      const association: AssociationInForce = {
        who: clientSap === 32 ? 'reader' : 'public',
        clientSap,
        conformance: d.conformance,
        clientMaxPdu: d.clientMaxReceivePduSize,
        lls: clientSap === 32,
      };
      return reply(d.aare, { ...NEW_SESSION, association, recharges: session.recharges });
    }
    case 'rlrq': // [AS-2.6]
      return reply({ type: 'rlre', reason: 0 }, { ...NEW_SESSION, recharges: session.recharges });
    case 'get-request-normal':
    case 'get-request-next':
    case 'get-request-with-list':
    case 'set-request-normal':
    case 'set-request-with-first-datablock':
    case 'set-request-with-datablock':
    case 'action-request-normal': {
      const association = session.association;
      // [AS-1.4] No association (or another client SAP than the one associated, over the wrapper):
      // service-not-allowed / operation-not-possible.
      if (association === null || association.clientSap !== clientSap) {
        return reply(
          { type: 'exception-response', stateError: 1, serviceError: 1 },
          session,
          'no association',
        );
      }
      const c: ReadContext = { view, association, config };
      if (apdu.type.startsWith('get')) return get(apdu as GetRequest, session, c);
      if (apdu.type.startsWith('set')) return set(apdu as SetRequest, session, c);
      return action(apdu as ActionRequest, session, c);
    }
    default:
      // [AS-1.3] A response or other APDU a client does not send: service-unknown.
      return reply(
        { type: 'exception-response', stateError: 2, serviceError: 2 },
        session,
        `${apdu.type} from a client`,
      );
  }
}

function replyOf(s: Session, apdu: Apdu, refusal?: string): ServeResult {
  return { kind: 'reply', session: s, apdu: encodeApdu(apdu), ...(refusal ? { refusal } : {}) };
}

/** [AS-3, AS-6] GET normal, next and with-list; a response too long goes in blocks. */
function get(req: GetRequest, s: Session, c: ReadContext): ServeResult {
  // [AS-6.1] The negotiated size: the smaller of the client's and the meter's own.
  const max = Math.min(c.association.clientMaxPdu, c.config.maxReceivePduSize, 0xffff);
  const cleared = { ...s, blocks: [], lastBlock: 0 };
  if (req.type === 'get-request-next') {
    const [next, ...rest] = s.blocks;
    // [AS-6.3] Only the block after the last one sent may be asked for.
    const wrong =
      next === undefined
        ? DAR.noLongGetInProgress
        : req.blockNumber !== s.lastBlock
          ? DAR.dataBlockNumberInvalid
          : null;
    if (wrong !== null || next === undefined) {
      const block = {
        last: true,
        blockNumber: req.blockNumber,
        result: { kind: 'error' as const, result: wrong ?? DAR.noLongGetInProgress },
      };
      return replyOf(
        cleared,
        { type: 'get-response-with-datablock', invoke: req.invoke, block },
        `get-next ${req.blockNumber}`,
      );
    }
    const sent = { ...next, invoke: req.invoke } as GetResponse;
    return replyOf({ ...s, blocks: rest, lastBlock: s.lastBlock + 1 }, sent);
  }
  let responses: GetResponse[];
  if (req.type === 'get-request-normal') {
    const result = getAttribute(req.attribute, req.access, c);
    responses =
      result.kind === 'data'
        ? getResponses(req.invoke, result.data, max)
        : [{ type: 'get-response-normal', invoke: req.invoke, result }];
  } else {
    const results: GetDataResult[] = req.items.map((i) => getAttribute(i.attribute, i.access, c));
    responses = getListResponses(req.invoke, results, max);
  }
  const [first, ...rest] = responses;
  return replyOf({ ...cleared, blocks: rest, lastBlock: rest.length > 0 ? 1 : 0 }, first!);
}

/** An integer a SET or ACTION carries, or null for any other Data [CO-9.4]. */
function integerOf(d: Data | undefined): number | null {
  if (d === undefined || !('value' in d) || typeof d.value !== 'number') return null;
  if (d.type === 'float32' || d.type === 'float64') return null;
  return Number.isInteger(d.value) ? d.value : null;
}

/** [AS-7.3] SET normal, or a value in blocks put together first. */
function set(req: SetRequest, s: Session, c: ReadContext): ServeResult {
  if (req.type === 'set-request-normal') {
    const r = setValue(req.attribute, req.access, req.value, c);
    if (typeof r === 'number')
      return replyOf(s, { type: 'set-response-normal', invoke: req.invoke, result: r }, `SET refused ${r}`);
    return { kind: 'command', session: s, command: r, pending: { via: 'set', invoke: req.invoke } };
  }
  let pending = s.setBlocks;
  if (req.type === 'set-request-with-first-datablock') {
    pending = {
      attribute: req.attribute,
      ...(req.access ? { access: req.access } : {}),
      assembly: startAssembly(),
    };
  }
  const block = req.block;
  const fail = (result: number, next: Session): ServeResult =>
    replyOf(
      next,
      { type: 'set-response-last-datablock', invoke: req.invoke, result, blockNumber: block.blockNumber },
      `SET block refused ${result}`,
    );
  if (pending === null) return fail(DAR.noLongSetInProgress, s);
  const step = acceptBlock(pending.assembly, block, 4096);
  const done = { ...s, setBlocks: null };
  if (step.kind === 'more') {
    return replyOf(
      { ...s, setBlocks: { ...pending, assembly: step.state } },
      { type: 'set-response-datablock', invoke: req.invoke, blockNumber: block.blockNumber },
    );
  }
  if (step.kind !== 'done') return fail(DAR.dataBlockNumberInvalid, done);
  const value = decodeData(step.raw);
  if (!value.ok) return fail(DAR.typeUnmatched, done);
  const r = setValue(pending.attribute, pending.access, value.value, c);
  if (typeof r === 'number') return fail(r, done);
  return {
    kind: 'command',
    session: done,
    command: r,
    pending: { via: 'set-last-block', invoke: req.invoke, blockNumber: block.blockNumber },
  };
}

/** [AS-7.3, CO-9.4] The command a SET asks for, or the data-access-result refusing it. */
function setValue(
  d: AttributeDescriptor,
  access: AccessSelection | undefined,
  value: Data,
  c: ReadContext,
): MeterCommand | number {
  const f = findAttribute(d, c);
  if (!f.ok) return f.result;
  const mode = f.item.access[c.association.who];
  if (mode !== 'write' && mode !== 'read-write') return DAR.readWriteDenied;
  if (access !== undefined) return DAR.scopeOfAccessViolated;
  const n = integerOf(value);
  if (n === null) return DAR.typeUnmatched;
  const r = commandForSet(d.instance, n);
  return 'refused' in r ? REFUSAL_RESULT[r.refused] : r;
}

/** [AS-7.1, CO-8.1, CO-9.3] ACTION: disconnect control's methods, the credit's update_amount. */
function action(req: ActionRequest, s: Session, c: ReadContext): ServeResult {
  const refuse = (result: number) =>
    replyOf(s, { type: 'action-response-normal', invoke: req.invoke, result }, `ACTION refused ${result}`);
  const f = findMethod(req.method, c);
  if (!f.ok) return refuse(f.result);
  // [AS-7.1] Disconnect control's methods take integer 0; a client that sends none is taken as 0.
  const param = req.parameters === undefined && req.method.classId === 70 ? 0 : integerOf(req.parameters);
  if (param === null) return refuse(DAR.typeUnmatched);
  const txId = `dlms-${c.association.clientSap}-${c.view.now}-${s.recharges + 1}`; // [AS-7.4]
  const r = commandForAction(req.method.instance, req.method.methodId, param, txId);
  if ('refused' in r) return refuse(REFUSAL_RESULT[r.refused]);
  const next = r.op === 'recharge' ? { ...s, recharges: s.recharges + 1 } : s;
  return { kind: 'command', session: next, command: r, pending: { via: 'action', invoke: req.invoke } };
}

/**
 * [AS-7.2] The response once the meter has answered the command: success, or the meter's refusal as
 * temporary-failure (busy) or other-reason (anything else), with the meter's message for the log.
 */
export function answerCommand(p: PendingCommand, reply: CommandReply): Uint8Array {
  const result = reply.ok
    ? DAR.success
    : reply.error.code === 'busy'
      ? DAR.temporaryFailure
      : DAR.otherReason;
  switch (p.via) {
    case 'set':
      return encodeApdu({ type: 'set-response-normal', invoke: p.invoke, result });
    case 'set-last-block':
      return encodeApdu({
        type: 'set-response-last-datablock',
        invoke: p.invoke,
        result,
        blockNumber: p.blockNumber,
      });
    case 'action':
      return encodeApdu({ type: 'action-response-normal', invoke: p.invoke, result });
  }
}
