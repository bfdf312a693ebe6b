// [CL-1 – CL-7] The DLMS client's application session as a pure reducer, for a bridge reading a meter:
// associate (AARQ, AARE checked), then one call at a time — GET normal or with-list (long answers joined
// from blocks with GetRequestNext), SET (long values sent in blocks), ACTION, RLRQ. Time is passed in;
// a call's deadline is the caller's to wake up for (`tick`). Below it sits any APDU transport: the HDLC
// client link (hdlc/client.ts) or the wrapper. Rule numbers refer to ../CLIENT.md.

import { associationRequest } from '../apdu/aarq.ts';
import { type Apdu, decodeApdu, encodeApdu } from '../apdu/apdu.ts';
import { associationOutcome } from '../apdu/association.ts';
import { type Assembly, acceptBlock, setRequests, startAssembly } from '../apdu/blocks.ts';
import type { GetDataResult, Invoke } from '../apdu/cosem.ts';
import { type Data, decodeData } from '../apdu/data.ts';
import { accessResultName, SERVICE_ERRORS, STATE_ERRORS } from '../apdu/errors.ts';
import { decodeResultList, type GetRequest } from '../apdu/get.ts';
import type { ConformanceBit } from '../apdu/initiate.ts';
import type { SetRequest } from '../apdu/set.ts';
import type { Call, Failure, Outcome } from './calls.ts';

export interface SessionConfig {
  /** [CL-1.1] The LLS password; undefined associates with lowest-level security (the public client). */
  password?: string;
  /** [CL-1.1] The client's max receive PDU size, proposed in the AARQ. */
  maxReceivePduSize: number;
  /** [CL-3.1] How long a request waits for its response. */
  timeoutMs: number;
  /** [CL-3.2] How many times the link repeats its last frame before the call fails. */
  retries: number;
  /** [CL-4.3] The longest answer joined from blocks. */
  maxResponseBytes: number;
}

export const DEFAULT_SESSION: SessionConfig = {
  maxReceivePduSize: 1200,
  timeoutMs: 3_000,
  retries: 2,
  maxResponseBytes: 1 << 20,
};

export type Phase = 'idle' | 'associating' | 'ready' | 'releasing';

interface Pending {
  readonly call: Call;
  readonly invoke: Invoke;
  readonly deadlineMs: number;
  readonly repeats: number;
  /** [CL-4.1] A long GET answer being joined. */
  readonly assembly: Assembly | null;
  /** [CL-4.2] SET blocks still to send after the one in flight. */
  readonly setBlocks: readonly SetRequest[];
}

export interface SessionState {
  readonly phase: Phase;
  /** [CL-2.2] The invoke id of the next call, 1..15. */
  readonly nextInvoke: number;
  readonly pending: Pending | null;
  /** [CL-1.3] The server's max receive PDU size: no request is longer. */
  readonly serverMaxPdu: number;
  readonly conformance: readonly ConformanceBit[];
}

export const INITIAL_SESSION: SessionState = {
  phase: 'idle',
  nextInvoke: 1,
  pending: null,
  serverMaxPdu: 0,
  conformance: [],
};

export type SessionEvent =
  | { kind: 'call'; call: Call; atMs: number }
  | { kind: 'response'; apdu: Uint8Array; atMs: number }
  | { kind: 'tick'; atMs: number }
  /** The transport went down: the association is gone with it [CL-3.3]. */
  | { kind: 'lost'; reason: string };

export type SessionEffect =
  | { kind: 'send'; apdu: Uint8Array }
  /** [CL-3.2] Ask the link to repeat its last frame (HDLC repeats it with the same N(S): never run twice). */
  | { kind: 'repeat' }
  /** The outcome of the one call in flight. */
  | { kind: 'done'; outcome: Outcome }
  /** [CL-7.1] An APDU ignored, for a counter and a log line. */
  | { kind: 'dropped'; rule: string; reason: string };

export interface SessionStep {
  state: SessionState;
  effects: SessionEffect[];
}

/** The deadline the caller must wake up for with `tick`, or null when nothing waits. */
export const deadlineOf = (s: SessionState): number | null => s.pending?.deadlineMs ?? null;

export function sessionStep(config: SessionConfig, state: SessionState, event: SessionEvent): SessionStep {
  switch (event.kind) {
    case 'call':
      return onCall(config, state, event.call, event.atMs);
    case 'tick':
      return onTick(config, state, event.atMs);
    case 'lost': {
      const effects: SessionEffect[] = [];
      if (state.pending) effects.push(done(fail('lost', `link lost: ${event.reason}`)));
      return { state: { ...INITIAL_SESSION, nextInvoke: state.nextInvoke }, effects };
    }
    case 'response':
      return onResponse(config, state, event.apdu, event.atMs);
  }
}

const done = (outcome: Outcome): SessionEffect => ({ kind: 'done', outcome });
const fail = (reason: Failure['reason'], message: string, result?: number): Failure =>
  result === undefined ? { kind: 'failed', reason, message } : { kind: 'failed', reason, message, result };

function onCall(config: SessionConfig, s: SessionState, call: Call, atMs: number): SessionStep {
  // [CL-2.1] One call at a time: the caller queues.
  if (s.pending) return { state: s, effects: [done(fail('busy', 'a call is already waiting [CL-2.1]'))] };
  const invoke: Invoke = { id: s.nextInvoke, confirmed: true, highPriority: true };
  const nextInvoke = s.nextInvoke === 15 ? 1 : s.nextInvoke + 1;
  const start = (phase: Phase, apdu: Apdu, setBlocks: readonly SetRequest[] = []): SessionStep => ({
    state: {
      ...s,
      phase,
      nextInvoke: apdu.type === 'aarq' || apdu.type === 'rlrq' ? s.nextInvoke : nextInvoke,
      pending: { call, invoke, deadlineMs: atMs + config.timeoutMs, repeats: 0, assembly: null, setBlocks },
    },
    effects: [{ kind: 'send', apdu: encodeApdu(apdu) }],
  });
  if (call.kind === 'associate') {
    // [CL-1.1] AARQ: logical names, LLS with the password or lowest-level security.
    const pw = config.password === undefined ? {} : { password: config.password };
    return start('associating', associationRequest({ ...pw, maxReceivePduSize: config.maxReceivePduSize }));
  }
  if (call.kind === 'release') {
    // [CL-6.1] Released from any phase; without an association there is nothing to say.
    if (s.phase !== 'ready') return { state: s, effects: [done({ kind: 'released' })] };
    return start('releasing', { type: 'rlrq', reason: 0 });
  }
  // [CL-1.4] Nothing but AARQ before the association.
  if (s.phase !== 'ready') {
    return { state: s, effects: [done(fail('not_associated', `no association (${s.phase}) [CL-1.4]`))] };
  }
  switch (call.kind) {
    case 'get':
      return start('ready', {
        type: 'get-request-normal',
        invoke,
        attribute: call.attribute,
        ...(call.access ? { access: call.access } : {}),
      });
    case 'get-list':
      return start('ready', { type: 'get-request-with-list', invoke, items: call.items });
    case 'set': {
      // [CL-4.2] A value longer than the server takes goes in blocks.
      const [first, ...rest] = setRequests(invoke, call.attribute, call.value, s.serverMaxPdu);
      return start('ready', first!, rest);
    }
    case 'action':
      return start('ready', {
        type: 'action-request-normal',
        invoke,
        method: call.method,
        ...(call.parameters ? { parameters: call.parameters } : {}),
      });
  }
}

function onTick(config: SessionConfig, s: SessionState, atMs: number): SessionStep {
  const p = s.pending;
  if (!p || atMs < p.deadlineMs) return { state: s, effects: [] };
  if (p.repeats < config.retries) {
    // [CL-3.2] Repeat, not resend: the meter must not run an ACTION twice.
    return {
      state: { ...s, pending: { ...p, repeats: p.repeats + 1, deadlineMs: atMs + config.timeoutMs } },
      effects: [{ kind: 'repeat' }],
    };
  }
  // [CL-3.3] No answer after the repeats: the association is taken as gone.
  const message = `no answer to ${p.call.kind} within ${config.timeoutMs} ms, ${p.repeats} repeats [CL-3.3]`;
  return {
    state: { ...INITIAL_SESSION, nextInvoke: s.nextInvoke },
    effects: [done(fail('timeout', message))],
  };
}

function onResponse(config: SessionConfig, s: SessionState, bytes: Uint8Array, atMs: number): SessionStep {
  const drop = (rule: string, reason: string): SessionStep => ({
    state: s,
    effects: [{ kind: 'dropped', rule, reason }],
  });
  const decoded = decodeApdu(bytes);
  if (!decoded.ok) return drop(decoded.error.rule, `undecodable APDU: ${decoded.error.message}`);
  const apdu = decoded.value;
  const p = s.pending;
  if (!p) return drop('CL-7.2', `${apdu.type} with no call waiting`);
  const finish = (outcome: Outcome, next: Partial<SessionState> = {}): SessionStep => ({
    state: { ...s, pending: null, ...next },
    effects: [done(outcome)],
  });
  if (apdu.type === 'exception-response') {
    // [CL-5.2] The server could not take the request at all; the association stays.
    const state = STATE_ERRORS[apdu.stateError as 1 | 2] ?? `${apdu.stateError}`;
    const service = SERVICE_ERRORS[apdu.serviceError as 1] ?? `${apdu.serviceError}`;
    const phase = p.call.kind === 'associate' ? { phase: 'idle' as const } : {};
    return finish(fail('exception', `exception response: ${state}, ${service} [CL-5.2]`), phase);
  }
  if (p.call.kind === 'associate') {
    if (apdu.type !== 'aare') return drop('CL-7.3', `${apdu.type} while associating`);
    // [CL-1.2] The AARE decides; the server's PDU size bounds every request after it.
    const outcome = associationOutcome(apdu);
    if (!outcome.ok) return finish(fail('refused', outcome.reason), { phase: 'idle' });
    return finish(
      { kind: 'associated', conformance: outcome.conformance, serverMaxPdu: outcome.serverMaxReceivePduSize },
      { phase: 'ready', conformance: outcome.conformance, serverMaxPdu: outcome.serverMaxReceivePduSize },
    );
  }
  if (p.call.kind === 'release') {
    if (apdu.type !== 'rlre') return drop('CL-7.3', `${apdu.type} while releasing`);
    return finish({ kind: 'released' }, { phase: 'idle' });
  }
  if (!('invoke' in apdu)) return drop('CL-7.3', `${apdu.type} in an association`);
  // [CL-2.2] A response to another invoke id is stale (a repeat the link delivered late): not ours.
  if (apdu.invoke.id !== p.invoke.id)
    return drop('CL-2.2', `invoke id ${apdu.invoke.id}, waiting for ${p.invoke.id}`);
  return answer(config, s, p, apdu, atMs, finish, drop);
}

type Finish = (outcome: Outcome, next?: Partial<SessionState>) => SessionStep;
type Drop = (rule: string, reason: string) => SessionStep;

function answer(
  config: SessionConfig,
  s: SessionState,
  p: Pending,
  apdu: Apdu,
  atMs: number,
  finish: Finish,
  drop: Drop,
): SessionStep {
  const wrong = () => drop('CL-7.3', `${apdu.type} to a ${p.call.kind}`);
  const again = (next: Pending, request: GetRequest | SetRequest): SessionStep => ({
    state: { ...s, pending: { ...next, deadlineMs: atMs + config.timeoutMs, repeats: 0 } },
    effects: [{ kind: 'send', apdu: encodeApdu(request) }],
  });
  switch (p.call.kind) {
    case 'get':
    case 'get-list': {
      if (apdu.type === 'get-response-normal' && p.call.kind === 'get')
        return finish(fromResult(apdu.result));
      if (apdu.type === 'get-response-with-list' && p.call.kind === 'get-list')
        return finish({ kind: 'list', results: apdu.results });
      if (apdu.type !== 'get-response-with-datablock') return wrong();
      // [CL-4.1] Join the blocks, asking for each next one; bounded by maxResponseBytes.
      const step = acceptBlock(p.assembly ?? startAssembly(), apdu.block, config.maxResponseBytes);
      if (step.kind === 'refused') {
        return finish(fail('refused', `${accessResultName(step.result)} in a block [CL-4.1]`, step.result));
      }
      if (step.kind === 'error')
        return finish(fail('protocol', `[${step.error.rule}] ${step.error.message}`));
      if (step.kind === 'more') {
        return again(
          { ...p, assembly: step.state },
          { type: 'get-request-next', invoke: p.invoke, blockNumber: step.ack },
        );
      }
      if (p.call.kind === 'get') {
        const data = decodeData(step.raw);
        return data.ok
          ? finish({ kind: 'data', data: data.value })
          : finish(fail('protocol', data.error.message));
      }
      const list = decodeResultList(step.raw);
      return list.ok
        ? finish({ kind: 'list', results: list.value })
        : finish(fail('protocol', list.error.message));
    }
    case 'set': {
      if (apdu.type === 'set-response-datablock') {
        // [CL-4.2] The server took block n: send block n + 1.
        const [next, ...rest] = p.setBlocks;
        if (!next) return wrong();
        return again({ ...p, setBlocks: rest }, next);
      }
      if (apdu.type === 'set-response-normal' || apdu.type === 'set-response-last-datablock')
        return finish(fromCode(apdu.result, false));
      return wrong();
    }
    case 'action':
      if (apdu.type !== 'action-response-normal') return wrong();
      if (apdu.result !== 0) return finish(fromCode(apdu.result, true));
      return finish({
        kind: 'result',
        result: 0,
        ...(apdu.returnParameters ? { returned: apdu.returnParameters } : {}),
      });
  }
  return wrong();
}

/** [CL-5.1] A data-access-result other than success is the call's refusal, named. */
function fromResult(result: GetDataResult): Outcome {
  if (result.kind === 'data') return { kind: 'data', data: result.data };
  return fail('refused', accessResultName(result.result), result.result);
}

function fromCode(code: number, action: boolean): Outcome {
  if (code === 0) return { kind: 'result', result: 0 };
  return fail('refused', accessResultName(code, action), code);
}

export type { Data };
