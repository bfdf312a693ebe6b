// GET block transfer both ways [AP-5.5, AP-5.6]: a server splitting a response too long for the client's
// max-receive-pdu-size into DataBlock-G blocks, and a client putting the blocks back together. Pure: the
// caller keeps the state and does the sending.

import { Writer } from './axdr.ts';
import { type GetDataResult, type Invoke, writeGetDataResult } from './cosem.ts';
import { type Data, writeData } from './data.ts';
import type { DecodeError } from './errors.ts';
import type { DataBlockG, GetResponse } from './get.ts';

/** Bytes of a with-datablock response around its raw data, besides the raw-data length's own bytes. */
const BLOCK_HEADER = 9; // C4 02 invoke last block-number(4) choice

const lengthBytes = (n: number) => (n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);

/** [AP-5.5] The most raw bytes a block can carry in an APDU of `maxPdu` bytes. */
export function blockPayloadSize(maxPdu: number): number {
  let size = maxPdu - BLOCK_HEADER - 1;
  while (size > 0 && BLOCK_HEADER + lengthBytes(size) + size > maxPdu) size--;
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

/** A client's reassembly in progress. */
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
 * [AP-5.6] Takes one block. Block numbers must run 1, 2, 3 …; the whole must stay within `maxBytes`.
 * When done, `raw` is the encoding of the Data (decode it with decodeData).
 */
export function acceptBlock(state: Assembly, block: DataBlockG, maxBytes = MAX_REASSEMBLED): AssemblyStep {
  if (block.blockNumber !== state.expect) {
    return error('AP-5.6', `block ${block.blockNumber}, expected ${state.expect}`);
  }
  if (block.result.kind === 'error') return { kind: 'refused', result: block.result.result };
  const size = state.size + block.result.raw.length;
  if (size > maxBytes) return error('AP-5.6', `reassembled response over ${maxBytes} bytes`);
  const chunks = [...state.chunks, block.result.raw];
  if (!block.last)
    return { kind: 'more', state: { expect: state.expect + 1, chunks, size }, ack: block.blockNumber };
  const raw = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    raw.set(c, at);
    at += c.length;
  }
  return { kind: 'done', raw };
}

function error(rule: string, message: string): AssemblyStep {
  return { kind: 'error', error: { code: 'bad_value', rule, message, offset: 0 } };
}
