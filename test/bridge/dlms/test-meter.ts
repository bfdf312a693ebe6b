// A small DLMS meter for the bridge's tests, built only from our pure pieces (the HDLC server link, the
// wrapper splitter, answerAarq, getResponses, the COSEM object table and its scalers): no canned bytes.
// It serves what the bridge reads — object list, registers with scalers, name plate, clock, credit,
// disconnect control, the block load profile by range — and takes ACTIONs on the relay and the credit.
// Beside `meterstack meter --protocol dlms` (meter-e2e.test.ts) it lets a test drop an answer, move the
// meter's clock, or leave out the credit object, on demand.

import { createServer, type Server, type Socket } from 'node:net';
import { SerialPort } from 'serialport';
import { decodeApdu, encodeApdu } from '../../../firmware-protocol/dlms/apdu/apdu.ts';
import { type AssociationPolicy, answerAarq } from '../../../firmware-protocol/dlms/apdu/association.ts';
import { getListResponses, getResponses } from '../../../firmware-protocol/dlms/apdu/blocks.ts';
import {
  type AttributeDescriptor,
  type GetDataResult,
  obisToBytes,
  rangeFromAccess,
} from '../../../firmware-protocol/dlms/apdu/cosem.ts';
import type { Data } from '../../../firmware-protocol/dlms/apdu/data.ts';
import { dateTimeFromInstant, encodeDateTime } from '../../../firmware-protocol/dlms/apdu/datetime.ts';
import type { GetResponse } from '../../../firmware-protocol/dlms/apdu/get.ts';
import { instantFrom } from '../../../firmware-protocol/dlms/client/values.ts';
import { OBIS } from '../../../firmware-protocol/dlms/cosem/obis.ts';
import { findObject } from '../../../firmware-protocol/dlms/cosem/object-list.ts';
import { BLOCK_LOAD_COLUMNS } from '../../../firmware-protocol/dlms/cosem/objects-profiles.ts';
import { UNITS } from '../../../firmware-protocol/dlms/cosem/types.ts';
import { encodeFrame, type HdlcAddress } from '../../../firmware-protocol/dlms/hdlc/frame.ts';
import {
  DEFAULT_LINK_CONFIG,
  INITIAL_LINK,
  type LinkState,
  step,
} from '../../../firmware-protocol/dlms/hdlc/link.ts';
import { FrameSplitter } from '../../../firmware-protocol/dlms/hdlc/splitter.ts';
import { encodeWpdu } from '../../../firmware-protocol/dlms/wrapper/codec.ts';
import { WpduSplitter } from '../../../firmware-protocol/dlms/wrapper/splitter.ts';

export const PASSWORD = '12345678';
export const IST = 330;

/** A block load row: end of block (ms), average V, block Wh, block VAh, cumulative Wh, credit (paise). */
export type Block = [number, number, number, number, number, number];

export interface MeterValues {
  /** Integers at each register's scaler (objects-registers.ts). */
  registers: Record<string, number>;
  credit: number;
  output: boolean;
  control: number;
  blocks: Block[];
  /** The meter's clock, ms. */
  clock: () => number;
  serial: string;
  /** Credits applied by update_amount, each amount. */
  credited: number[];
  /** Drop the frames of the next ACTION's response (as a noisy line would). */
  dropNextActionResponse: boolean;
  /** List the credit object (false: a meter without prepayment). */
  hasCredit: boolean;
}

export const LIVE = [
  OBIS.voltage,
  OBIS.phaseCurrent,
  OBIS.powerFactor,
  OBIS.apparentPower,
  OBIS.activePower,
  OBIS.reactivePower,
  OBIS.energyKwh,
];

function listed(v: MeterValues): { classId: number; obis: string }[] {
  const regs = [...LIVE, OBIS.averageVoltage, OBIS.blockKwh, OBIS.blockKvah].map((obis) => ({
    classId: 3,
    obis,
  }));
  return [
    { classId: 15, obis: OBIS.associationCurrent },
    { classId: 8, obis: OBIS.clock },
    { classId: 1, obis: OBIS.serialNumber },
    { classId: 1, obis: OBIS.firmwareVersion },
    ...regs,
    { classId: 7, obis: OBIS.blockLoadProfile },
    { classId: 70, obis: OBIS.disconnectControl },
    ...(v.hasCredit ? [{ classId: 112, obis: OBIS.credit }] : []),
  ];
}

const u = (type: 'long-unsigned' | 'double-long-unsigned' | 'double-long' | 'long', value: number): Data => ({
  type,
  value,
});
const octets = (value: Uint8Array): Data => ({ type: 'octet-string', value });

function read(v: MeterValues, a: AttributeDescriptor): GetDataResult {
  const su = findObject(a.instance)?.scalerUnit;
  const key = `${a.classId}/${a.instance}/${a.attributeId}`;
  if (a.classId === 3 && su && a.attributeId === 3) {
    return {
      kind: 'data',
      data: {
        type: 'structure',
        items: [
          { type: 'integer', value: su.scaler },
          { type: 'enum', value: UNITS[su.unit] },
        ],
      },
    };
  }
  if (a.classId === 3 && a.attributeId === 2 && v.registers[a.instance] !== undefined) {
    const type = findObject(a.instance)!.attributes.find((x) => x.id === 2)!.type as 'long';
    return { kind: 'data', data: u(type, v.registers[a.instance]!) };
  }
  switch (key) {
    case `15/${OBIS.associationCurrent}/2`:
      return {
        kind: 'data',
        data: {
          type: 'array',
          items: listed(v).map((o) => ({
            type: 'structure' as const,
            items: [
              u('long-unsigned', o.classId),
              { type: 'unsigned' as const, value: 0 },
              octets(obisToBytes(o.obis)),
              { type: 'structure' as const, items: [] },
            ],
          })),
        },
      };
    case `8/${OBIS.clock}/2`:
      return { kind: 'data', data: octets(encodeDateTime(dateTimeFromInstant(v.clock(), IST))) };
    case `1/${OBIS.serialNumber}/2`:
      return { kind: 'data', data: { type: 'visible-string', value: v.serial } };
    case `1/${OBIS.firmwareVersion}/2`:
      return { kind: 'data', data: { type: 'visible-string', value: 'TEST-1.0' } };
    case `112/${OBIS.credit}/2`:
      return v.hasCredit ? { kind: 'data', data: u('double-long', v.credit) } : { kind: 'error', result: 4 };
    case `70/${OBIS.disconnectControl}/2`:
      return { kind: 'data', data: { type: 'boolean', value: v.output } };
    case `70/${OBIS.disconnectControl}/3`:
      return { kind: 'data', data: { type: 'enum', value: v.control } };
    case `7/${OBIS.blockLoadProfile}/3`:
      return {
        kind: 'data',
        data: {
          type: 'array',
          items: BLOCK_LOAD_COLUMNS.map((c) => ({
            type: 'structure' as const,
            items: [
              u('long-unsigned', c.classId),
              octets(obisToBytes(c.obis)),
              { type: 'integer' as const, value: c.attribute },
              u('long-unsigned', 0),
            ],
          })),
        },
      };
    case `7/${OBIS.blockLoadProfile}/4`:
      return { kind: 'data', data: u('double-long-unsigned', 900) };
    default:
      return { kind: 'error', result: 4 }; // object-undefined
  }
}

function buffer(v: MeterValues, from: number, to: number): Data {
  const rows = v.blocks.filter((b) => b[0] >= from && b[0] <= to);
  return {
    type: 'array',
    items: rows.map((b) => ({
      type: 'structure' as const,
      items: [
        octets(encodeDateTime(dateTimeFromInstant(b[0], IST))),
        u('long-unsigned', b[1]),
        u('double-long-unsigned', b[2]),
        u('double-long-unsigned', b[3]),
        u('double-long-unsigned', b[4]),
        u('double-long', b[5]),
      ],
    })),
  };
}

/** One association's application: APDU in, APDUs out (each answer, block by block). */
export class TestApplication {
  #maxPdu = 0;
  #blocks: GetResponse[] = [];
  /** Set while the last answer was to an ACTION. */
  lastWasAction = false;

  constructor(readonly v: MeterValues) {}

  handle(bytes: Uint8Array, clientSap: number): Uint8Array | null {
    const d = decodeApdu(bytes);
    this.lastWasAction = false;
    if (!d.ok) return encodeApdu({ type: 'exception-response', stateError: 2, serviceError: 2 });
    const a = d.value;
    const policy: AssociationPolicy = {
      clients: { 16: { authentication: 'none' }, 32: { authentication: 'lls', password: PASSWORD } },
      conformance: [
        'get',
        'set',
        'action',
        'selective-access',
        'multiple-references',
        'block-transfer-with-get-or-read',
      ],
      maxReceivePduSize: 1024,
    };
    switch (a.type) {
      case 'aarq': {
        const decision = answerAarq(a, clientSap, policy);
        if (decision.accepted) this.#maxPdu = Math.min(decision.clientMaxReceivePduSize, 1024);
        return encodeApdu(decision.aare);
      }
      case 'rlrq':
        return encodeApdu({ type: 'rlre', reason: 0 });
      case 'get-request-normal': {
        let result = read(this.v, a.attribute);
        if (a.access && a.attribute.classId === 7 && a.attribute.attributeId === 2) {
          const r = rangeFromAccess(a.access);
          const from = r ? instantFrom(r.from, IST) : null;
          const to = r ? instantFrom(r.to, IST) : null;
          result =
            from === null || to === null
              ? { kind: 'error', result: 250 }
              : { kind: 'data', data: buffer(this.v, from, to) };
        }
        if (result.kind === 'error')
          return encodeApdu({ type: 'get-response-normal', invoke: a.invoke, result });
        return this.#send(getResponses(a.invoke, result.data, this.#maxPdu));
      }
      case 'get-request-with-list':
        return this.#send(
          getListResponses(
            a.invoke,
            a.items.map((i) => read(this.v, i.attribute)),
            this.#maxPdu,
          ),
        );
      case 'get-request-next': {
        const next = this.#blocks.shift();
        if (!next)
          return encodeApdu({
            type: 'get-response-with-datablock',
            invoke: a.invoke,
            block: { last: true, blockNumber: a.blockNumber + 1, result: { kind: 'error', result: 16 } },
          });
        return encodeApdu(next);
      }
      case 'action-request-normal': {
        this.lastWasAction = true;
        const m = a.method;
        const param =
          a.parameters && 'value' in a.parameters && typeof a.parameters.value === 'number'
            ? a.parameters.value
            : 0;
        let result = 0;
        if (m.instance === OBIS.disconnectControl && (m.methodId === 1 || m.methodId === 2)) {
          this.v.output = m.methodId === 2;
          this.v.control = m.methodId === 2 ? 1 : 0;
        } else if (m.instance === OBIS.credit && m.methodId === 1 && this.v.hasCredit && param > 0) {
          this.v.credit += param;
          this.v.credited.push(param);
        } else result = 4;
        return encodeApdu({ type: 'action-response-normal', invoke: a.invoke, result });
      }
      case 'set-request-normal':
        return encodeApdu({ type: 'set-response-normal', invoke: a.invoke, result: 3 });
      default:
        return encodeApdu({ type: 'exception-response', stateError: 2, serviceError: 2 });
    }
  }

  #send(responses: GetResponse[]): Uint8Array {
    const [first, ...rest] = responses;
    this.#blocks = rest;
    return encodeApdu(first!);
  }
}

export function meterValues(over: Partial<MeterValues> = {}): MeterValues {
  return {
    registers: {
      [OBIS.voltage]: 23012,
      [OBIS.phaseCurrent]: 5210,
      [OBIS.powerFactor]: 962,
      [OBIS.apparentPower]: 11989,
      [OBIS.activePower]: 11533,
      [OBIS.reactivePower]: -3285,
      [OBIS.energyKwh]: 1234567,
    },
    credit: 50_000,
    output: true,
    control: 1,
    blocks: [],
    clock: Date.now,
    serial: 'TST0001',
    credited: [],
    dropNextActionResponse: false,
    hasCredit: true,
    ...over,
  };
}

/** The meter on TCP with the wrapper, its logical device at wPort 1; on `port` (0: any free one). */
export async function serveTcp(
  v: MeterValues,
  port = 0,
): Promise<{ port: number; server: Server; sockets: Set<Socket>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const app = new TestApplication(v);
    const splitter = new WpduSplitter();
    socket.on('data', (chunk) => {
      for (const piece of splitter.push(chunk)) {
        if (piece.kind === 'fatal') return socket.destroy();
        const out = app.handle(piece.pdu.apdu, piece.pdu.source);
        if (app.lastWasAction && v.dropNextActionResponse) {
          v.dropNextActionResponse = false;
          continue;
        }
        if (out) socket.write(encodeWpdu({ source: piece.pdu.dest, dest: piece.pdu.source, apdu: out }));
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const bound = (server.address() as { port: number }).port;
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return { port: bound, server, sockets, close };
}

/** The meter on a serial path with HDLC at `address`. */
export async function serveHdlc(
  v: MeterValues,
  path: string,
  address: HdlcAddress,
): Promise<{ port: SerialPort; close(): Promise<void> }> {
  const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
  await new Promise<void>((res, rej) => port.open((e) => (e ? rej(e) : res())));
  const config = { ...DEFAULT_LINK_CONFIG, address };
  let state: LinkState = INITIAL_LINK;
  let app = new TestApplication(v);
  const splitter = new FrameSplitter();
  let dropping = false;
  const run = (event: Parameters<typeof step>[2]) => {
    const r = step(config, state, event);
    state = r.state;
    for (const e of r.effects) {
      if (e.kind === 'send' && !dropping) port.write(Buffer.from(encodeFrame(e.frame)));
      if (e.kind === 'connected') app = new TestApplication(v);
      if (e.kind === 'deliver') {
        const out = app.handle(e.apdu, state.client ?? 0);
        dropping = app.lastWasAction && v.dropNextActionResponse;
        if (dropping) v.dropNextActionResponse = false;
        if (out) run({ kind: 'respond', apdu: out, atMs: Date.now() });
        dropping = false;
      }
    }
  };
  port.on('data', (chunk: Buffer) => {
    for (const p of splitter.push(chunk))
      if (p.kind === 'frame') run({ kind: 'frame', frame: p.frame, atMs: Date.now() });
  });
  port.on('error', () => undefined);
  return { port, close: () => new Promise<void>((r) => (port.isOpen ? port.close(() => r()) : r())) };
}
