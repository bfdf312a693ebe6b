// SET-Request and SET-Response with logical names: normal, and the block transfer of a long value
// (with-first-datablock, with-datablock) [AP-6].

import type { Reader, Writer } from './axdr.ts';
import {
  type AccessSelection,
  type AttributeDescriptor,
  type Invoke,
  readAttribute,
  readInvoke,
  readOptionalAccess,
  readPresence,
  writeAttribute,
  writeInvoke,
  writeOptionalAccess,
} from './cosem.ts';
import { type Data, readData, writeData } from './data.ts';
import { fail } from './errors.ts';

export const SET_REQUEST = 0xc1;
export const SET_RESPONSE = 0xc5;

/** [AP-6.2] DataBlock-SA: one block of a long value sent by the client. */
export interface DataBlockSA {
  last: boolean;
  blockNumber: number;
  raw: Uint8Array;
}

export type SetRequest =
  | {
      type: 'set-request-normal';
      invoke: Invoke;
      attribute: AttributeDescriptor;
      access?: AccessSelection;
      value: Data;
    }
  | {
      type: 'set-request-with-first-datablock';
      invoke: Invoke;
      attribute: AttributeDescriptor;
      access?: AccessSelection;
      block: DataBlockSA;
    }
  | { type: 'set-request-with-datablock'; invoke: Invoke; block: DataBlockSA };

export type SetResponse =
  | { type: 'set-response-normal'; invoke: Invoke; result: number }
  | { type: 'set-response-datablock'; invoke: Invoke; blockNumber: number }
  | { type: 'set-response-last-datablock'; invoke: Invoke; result: number; blockNumber: number };

function readBlockSA(r: Reader): DataBlockSA {
  const last = readPresence(r, 'last-block');
  const blockNumber = r.u32('block number');
  return { last, blockNumber, raw: r.take(r.boundedLength('raw-data length')) };
}

function writeBlockSA(w: Writer, b: DataBlockSA): void {
  w.u8(b.last ? 1 : 0)
    .u32(b.blockNumber)
    .length(b.raw.length)
    .bytes(b.raw);
}

export function readSetRequest(r: Reader): SetRequest {
  const at = r.offset;
  const choice = r.u8('SET-Request choice');
  const invoke = readInvoke(r);
  switch (choice) {
    case 1:
    case 2: {
      const attribute = readAttribute(r);
      const access = readOptionalAccess(r);
      const sel = access ? { access } : {};
      if (choice === 1) return { type: 'set-request-normal', invoke, attribute, ...sel, value: readData(r) };
      return { type: 'set-request-with-first-datablock', invoke, attribute, ...sel, block: readBlockSA(r) };
    }
    case 3:
      return { type: 'set-request-with-datablock', invoke, block: readBlockSA(r) };
    case 4:
    case 5:
      return fail('unsupported', 'AP-6.3', `SET-Request with-list (choice ${choice})`, at);
    default:
      return fail('bad_tag', 'AP-6.1', `SET-Request choice ${choice}`, at);
  }
}

export function writeSetRequest(w: Writer, s: SetRequest): void {
  w.u8(SET_REQUEST);
  switch (s.type) {
    case 'set-request-normal':
      w.u8(1);
      writeInvoke(w, s.invoke);
      writeAttribute(w, s.attribute);
      writeOptionalAccess(w, s.access);
      writeData(w, s.value);
      return;
    case 'set-request-with-first-datablock':
      w.u8(2);
      writeInvoke(w, s.invoke);
      writeAttribute(w, s.attribute);
      writeOptionalAccess(w, s.access);
      writeBlockSA(w, s.block);
      return;
    case 'set-request-with-datablock':
      w.u8(3);
      writeInvoke(w, s.invoke);
      writeBlockSA(w, s.block);
      return;
  }
}

export function readSetResponse(r: Reader): SetResponse {
  const at = r.offset;
  const choice = r.u8('SET-Response choice');
  const invoke = readInvoke(r);
  switch (choice) {
    case 1:
      return { type: 'set-response-normal', invoke, result: r.u8('data-access-result') };
    case 2:
      return { type: 'set-response-datablock', invoke, blockNumber: r.u32('block number') };
    case 3: {
      const result = r.u8('data-access-result');
      return { type: 'set-response-last-datablock', invoke, result, blockNumber: r.u32('block number') };
    }
    case 4:
    case 5:
      return fail('unsupported', 'AP-6.3', `SET-Response with-list (choice ${choice})`, at);
    default:
      return fail('bad_tag', 'AP-6.1', `SET-Response choice ${choice}`, at);
  }
}

export function writeSetResponse(w: Writer, s: SetResponse): void {
  w.u8(SET_RESPONSE);
  switch (s.type) {
    case 'set-response-normal':
      w.u8(1);
      writeInvoke(w, s.invoke);
      w.u8(s.result);
      return;
    case 'set-response-datablock':
      w.u8(2);
      writeInvoke(w, s.invoke);
      w.u32(s.blockNumber);
      return;
    case 'set-response-last-datablock':
      w.u8(3);
      writeInvoke(w, s.invoke);
      w.u8(s.result).u32(s.blockNumber);
      return;
  }
}
