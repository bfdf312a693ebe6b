// ACTION-Request and ACTION-Response normal, with optional parameters and return data [AP-7].

import type { Reader, Writer } from './axdr.ts';
import {
  type GetDataResult,
  type Invoke,
  type MethodDescriptor,
  readGetDataResult,
  readInvoke,
  readMethod,
  readPresence,
  writeGetDataResult,
  writeInvoke,
  writeMethod,
} from './cosem.ts';
import { type Data, readData, writeData } from './data.ts';
import { fail } from './errors.ts';

export const ACTION_REQUEST = 0xc3;
export const ACTION_RESPONSE = 0xc7;

export interface ActionRequest {
  type: 'action-request-normal';
  invoke: Invoke;
  method: MethodDescriptor;
  parameters?: Data;
}

export interface ActionResponse {
  type: 'action-response-normal';
  invoke: Invoke;
  /** An action-result [AP-9.1]. */
  result: number;
  returnParameters?: GetDataResult;
}

export function readActionRequest(r: Reader): ActionRequest {
  const at = r.offset;
  const choice = r.u8('ACTION-Request choice');
  if (choice >= 2 && choice <= 6) fail('unsupported', 'AP-7.2', `ACTION-Request choice ${choice}`, at);
  if (choice !== 1) fail('bad_tag', 'AP-7.1', `ACTION-Request choice ${choice}`, at);
  const invoke = readInvoke(r);
  const method = readMethod(r);
  if (!readPresence(r, 'method-invocation-parameters'))
    return { type: 'action-request-normal', invoke, method };
  return { type: 'action-request-normal', invoke, method, parameters: readData(r) };
}

export function writeActionRequest(w: Writer, a: ActionRequest): void {
  w.u8(ACTION_REQUEST).u8(1);
  writeInvoke(w, a.invoke);
  writeMethod(w, a.method);
  if (a.parameters === undefined) {
    w.u8(0);
    return;
  }
  w.u8(1);
  writeData(w, a.parameters);
}

export function readActionResponse(r: Reader): ActionResponse {
  const at = r.offset;
  const choice = r.u8('ACTION-Response choice');
  if (choice >= 2 && choice <= 4) fail('unsupported', 'AP-7.2', `ACTION-Response choice ${choice}`, at);
  if (choice !== 1) fail('bad_tag', 'AP-7.1', `ACTION-Response choice ${choice}`, at);
  const invoke = readInvoke(r);
  const result = r.u8('action-result');
  if (!readPresence(r, 'return-parameters')) return { type: 'action-response-normal', invoke, result };
  return { type: 'action-response-normal', invoke, result, returnParameters: readGetDataResult(r) };
}

export function writeActionResponse(w: Writer, a: ActionResponse): void {
  w.u8(ACTION_RESPONSE).u8(1);
  writeInvoke(w, a.invoke);
  w.u8(a.result);
  if (a.returnParameters === undefined) {
    w.u8(0);
    return;
  }
  w.u8(1);
  writeGetDataResult(w, a.returnParameters);
}
