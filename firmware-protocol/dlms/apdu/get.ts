// GET-Request and GET-Response with logical names: normal, next (block transfer) and with-list [AP-5].

import { Reader, type Writer } from './axdr.ts';
import {
  type AccessSelection,
  type AttributeDescriptor,
  type GetDataResult,
  type Invoke,
  readAttribute,
  readGetDataResult,
  readInvoke,
  readOptionalAccess,
  readPresence,
  writeAttribute,
  writeGetDataResult,
  writeInvoke,
  writeOptionalAccess,
} from './cosem.ts';
import { attempt, fail, type Result } from './errors.ts';

export const GET_REQUEST = 0xc0;
export const GET_RESPONSE = 0xc4;

export interface AttributeWithSelection {
  attribute: AttributeDescriptor;
  access?: AccessSelection;
}

export type GetRequest =
  | { type: 'get-request-normal'; invoke: Invoke; attribute: AttributeDescriptor; access?: AccessSelection }
  | { type: 'get-request-next'; invoke: Invoke; blockNumber: number }
  | { type: 'get-request-with-list'; invoke: Invoke; items: AttributeWithSelection[] };

/** [AP-5.4] DataBlock-G: one block of a long GET response. */
export interface DataBlockG {
  last: boolean;
  blockNumber: number;
  result: { kind: 'raw'; raw: Uint8Array } | { kind: 'error'; result: number };
}

export type GetResponse =
  | { type: 'get-response-normal'; invoke: Invoke; result: GetDataResult }
  | { type: 'get-response-with-datablock'; invoke: Invoke; block: DataBlockG }
  | { type: 'get-response-with-list'; invoke: Invoke; results: GetDataResult[] };

/** Reads the body of a GET-Request after its tag byte [AP-5.1]. */
export function readGetRequest(r: Reader): GetRequest {
  const at = r.offset;
  const choice = r.u8('GET-Request choice');
  const invoke = readInvoke(r);
  switch (choice) {
    case 1: {
      const attribute = readAttribute(r);
      const access = readOptionalAccess(r);
      return { type: 'get-request-normal', invoke, attribute, ...(access ? { access } : {}) };
    }
    case 2:
      return { type: 'get-request-next', invoke, blockNumber: r.u32('block number') };
    case 3: {
      // [AP-5.2] each item takes at least 10 bytes (descriptor and presence flag).
      const n = r.boundedLength('attribute list count', 10);
      const items: AttributeWithSelection[] = [];
      for (let i = 0; i < n; i++) {
        const attribute = readAttribute(r);
        const access = readOptionalAccess(r);
        items.push({ attribute, ...(access ? { access } : {}) });
      }
      return { type: 'get-request-with-list', invoke, items };
    }
    default:
      return fail('bad_tag', 'AP-5.1', `GET-Request choice ${choice}`, at);
  }
}

export function writeGetRequest(w: Writer, g: GetRequest): void {
  w.u8(GET_REQUEST);
  switch (g.type) {
    case 'get-request-normal':
      w.u8(1);
      writeInvoke(w, g.invoke);
      writeAttribute(w, g.attribute);
      writeOptionalAccess(w, g.access);
      return;
    case 'get-request-next':
      w.u8(2);
      writeInvoke(w, g.invoke);
      w.u32(g.blockNumber);
      return;
    case 'get-request-with-list':
      w.u8(3);
      writeInvoke(w, g.invoke);
      w.length(g.items.length);
      for (const item of g.items) {
        writeAttribute(w, item.attribute);
        writeOptionalAccess(w, item.access);
      }
      return;
  }
}

/** Reads the body of a GET-Response after its tag byte [AP-5.1]. */
export function readGetResponse(r: Reader): GetResponse {
  const at = r.offset;
  const choice = r.u8('GET-Response choice');
  const invoke = readInvoke(r);
  switch (choice) {
    case 1:
      return { type: 'get-response-normal', invoke, result: readGetDataResult(r) };
    case 2:
      return { type: 'get-response-with-datablock', invoke, block: readDataBlockG(r) };
    case 3: {
      // [AP-5.2] each result takes at least 2 bytes.
      const n = r.boundedLength('result list count', 2);
      const results: GetDataResult[] = [];
      for (let i = 0; i < n; i++) results.push(readGetDataResult(r));
      return { type: 'get-response-with-list', invoke, results };
    }
    default:
      return fail('bad_tag', 'AP-5.1', `GET-Response choice ${choice}`, at);
  }
}

function readDataBlockG(r: Reader): DataBlockG {
  const last = readPresence(r, 'last-block');
  const blockNumber = r.u32('block number');
  const at = r.offset;
  const choice = r.u8('DataBlock-G result');
  if (choice === 0) {
    return { last, blockNumber, result: { kind: 'raw', raw: r.take(r.boundedLength('raw-data length')) } };
  }
  if (choice === 1)
    return { last, blockNumber, result: { kind: 'error', result: r.u8('data-access-result') } };
  return fail('bad_tag', 'AP-5.4', `DataBlock-G result choice ${choice}`, at);
}

export function writeGetResponse(w: Writer, g: GetResponse): void {
  w.u8(GET_RESPONSE);
  switch (g.type) {
    case 'get-response-normal':
      w.u8(1);
      writeInvoke(w, g.invoke);
      writeGetDataResult(w, g.result);
      return;
    case 'get-response-with-datablock': {
      w.u8(2);
      writeInvoke(w, g.invoke);
      const b = g.block;
      w.u8(b.last ? 1 : 0).u32(b.blockNumber);
      if (b.result.kind === 'raw') w.u8(0).length(b.result.raw.length).bytes(b.result.raw);
      else w.u8(1).u8(b.result.result);
      return;
    }
    case 'get-response-with-list':
      w.u8(3);
      writeInvoke(w, g.invoke);
      writeResultList(w, g.results);
      return;
  }
}

/** [AP-5.5] The raw data of a with-list response sent in blocks: the count and the Get-Data-Results. */
export function writeResultList(w: Writer, results: readonly GetDataResult[]): void {
  w.length(results.length);
  for (const res of results) writeGetDataResult(w, res);
}

/** [AP-5.6] Decodes the reassembled raw data of a with-list response. */
export function decodeResultList(raw: Uint8Array): Result<GetDataResult[]> {
  return attempt(() => {
    const r = new Reader(raw);
    const n = r.boundedLength('result list count', 2);
    const results: GetDataResult[] = [];
    for (let i = 0; i < n; i++) results.push(readGetDataResult(r));
    r.end('result list');
    return results;
  });
}
