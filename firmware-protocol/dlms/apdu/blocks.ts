// Block transfer both ways: a server splitting a GET response too long for the client's
// max-receive-pdu-size into DataBlock-G blocks and a client putting them back together [AP-5.5, AP-5.6];
// a client splitting a long SET value into DataBlock-SA blocks and a server putting those together
// [AP-6.2]. Pure: the caller keeps the state and does the sending.

import { Writer } from './axdr.ts';
import {
  type AccessSelection,
  type AttributeDescriptor,
  type GetDataResult,
  type Invoke,
  writeAttribute,
  writeGetDataResult,
  writeOptionalAccess,
} from './cosem.ts';
import { type Data, writeData } from './data.ts';
import type { DecodeError } from './errors.ts';
import { type DataBlockG, type GetResponse, writeResultList } from './get.ts';
import { type DataBlockSA, type SetRequest, writeSetRequest } from './set.ts';

/** Bytes of a with-datablock response around its raw data, besides the raw-data length's own bytes. */
const BLOCK_HEADER = 9; // C4 02 invoke last block-number(4) choice

const lengthBytes = (n: number) => (n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);

/**
 * [AP-5.5] The most raw bytes a block can carry in an APDU of `maxPdu` bytes, after `header` bytes
 * (9 for a GET with-datablock response) and the raw-data length.
 */
export function blockPayloadSize(maxPdu: number, header = BLOCK_HEADER): number {
  let size = maxPdu - header - 1;
  while (size > 0 && header + lengthBytes(size) + size > maxPdu) size--;
  if (size < 1) throw new RangeError(`max PDU size ${maxPdu} leaves no room for a block [AP-5.5]`);
  return size;
}

/**
 * [AP-5.5] The responses a server sends for a GET of `data`: one get-response-normal when it fits in
 * `maxPdu` bytes, else the blocks of its encoding, numbered from 1, the last one marked. The first
 * answers the request; each further one answers a get-request-next for the block before it.
 */
export function getResponses(invoke: Invoke, data: Data, maxPdu: number): GetResponse[] {
  const result: GetDataResult = { kind: 'data', data };
  const normal = new Writer().u8(0xc4).u8(1).u8(0);
  writeGetDataResult(normal, result);
  if (normal.finish().length <= maxPdu) return [{ type: 'get-response-normal', invoke, result }];
  const w = new Writer();
  writeData(w, data);
  return splitIntoBlocks(invoke, w.finish(), maxPdu);
}

/** [AP-5.5] The same for a GET with-list: one with-list response, or its count and results in blocks. */
export function getListResponses(
  invoke: Invoke,
  results: readonly GetDataResult[],
  maxPdu: number,
): GetResponse[] {
  const raw = new Writer();
  writeResultList(raw, results);
  const bytes = raw.finish();
  if (3 + bytes.length <= maxPdu) return [{ type: 'get-response-with-list', invoke, results: [...results] }];
  return splitIntoBlocks(invoke, bytes, maxPdu);
}

/** [AP-5.5] Splits already-encoded raw data (a Data, or a with-list's results) into blocks. */
export function splitIntoBlocks(invoke: Invoke, raw: Uint8Array, maxPdu: number): GetResponse[] {
  const size = blockPayloadSize(maxPdu);
  const out: GetResponse[] = [];
  for (let start = 0, n = 1; start < raw.length || n === 1; start += size, n++) {
    const chunk = raw.slice(start, start + size);
    const block: DataBlockG = {
      last: start + size >= raw.length,
      blockNumber: n,
      result: { kind: 'raw', raw: chunk },
    };
    out.push({ type: 'get-response-with-datablock', invoke, block });
  }
  return out;
}

/**
 * [AP-6.2] The SET-Requests a client sends to write `value`: one set-request-normal when it fits in the
 * server's max receive PDU size, else with-first-datablock and then with-datablock, numbered from 1, the
 * last marked. The server answers each but the last with set-response-datablock.
 */
export function setRequests(
  invoke: Invoke,
  attribute: AttributeDescriptor,
  value: Data,
  maxPdu: number,
  access?: AccessSelection,
): SetRequest[] {
  const sel = access ? { access } : {};
  const normal: SetRequest = { type: 'set-request-normal', invoke, attribute, ...sel, value };
  const w = new Writer();
  writeSetRequest(w, normal);
  if (w.finish().length <= maxPdu) return [normal];
  const raw = new Writer();
  writeData(raw, value);
  const bytes = raw.finish();
  // The first block carries the descriptor and access selection too: C1 02 invoke, descriptor, access,
  // last, block number.
  const head = new Writer();
  writeAttribute(head, attribute);
  writeOptionalAccess(head, access);
  const firstSize = blockPayloadSize(maxPdu, 3 + head.finish().length + 5);
  const restSize = blockPayloadSize(maxPdu, 8);
  const out: SetRequest[] = [];
  let start = 0;
  for (let n = 1; n === 1 || start < bytes.length; n++) {
    const size = n === 1 ? firstSize : restSize;
    const block: DataBlockSA = {
      last: start + size >= bytes.length,
      blockNumber: n,
      raw: bytes.slice(start, start + size),
    };
    out.push(
      n === 1
        ? { type: 'set-request-with-first-datablock', invoke, attribute, ...sel, block }
        : { type: 'set-request-with-datablock', invoke, block },
    );
    start += size;
  }
  return out;
}

/** A reassembly in progress (a GET response on a client, a SET value on a server). */
export interface Assembly {
  /** The block number expected next. */
  expect: number;
  chunks: Uint8Array[];
  size: number;
}

export type AssemblyStep =
  | { kind: 'more'; state: Assembly /** Send get-request-next with this block number. */; ack: number }
  | { kind: 'done'; raw: Uint8Array }
  /** The server aborted with a data-access-result in the block. */
  | { kind: 'refused'; result: number }
  | { kind: 'error'; error: DecodeError };

export const startAssembly = (): Assembly => ({ expect: 1, chunks: [], size: 0 });

/** [AP-5.6] Default bound on a reassembled response: a profile buffer of some thousands of rows. */
export const MAX_REASSEMBLED = 1 << 20;

/**
 * [AP-5.6, AP-6.2] Takes one block, a GET response's DataBlock-G or a SET request's DataBlock-SA. Block
 * numbers must run 1, 2, 3 …; the whole must stay within `maxBytes`. When done, `raw` is the encoding of
 * the Data (decode it with decodeData).
 */
export function acceptBlock(
  state: Assembly,
  block: DataBlockG | DataBlockSA,
  maxBytes = MAX_REASSEMBLED,
): AssemblyStep {
  if (block.blockNumber !== state.expect) {
    return error('AP-5.6', `block ${block.blockNumber}, expected ${state.expect}`);
  }
  let raw: Uint8Array;
  if ('raw' in block) raw = block.raw;
  else if (block.result.kind === 'error') return { kind: 'refused', result: block.result.result };
  else raw = block.result.raw;
  const size = state.size + raw.length;
  if (size > maxBytes) return error('AP-5.6', `reassembled value over ${maxBytes} bytes`);
  const chunks = [...state.chunks, raw];
  if (!block.last)
    return { kind: 'more', state: { expect: state.expect + 1, chunks, size }, ack: block.blockNumber };
  const whole = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    whole.set(c, at);
    at += c.length;
  }
  return { kind: 'done', raw: whole };
}

function error(rule: string, message: string): AssemblyStep {
  return { kind: 'error', error: { code: 'bad_value', rule, message, offset: 0 } };
}
