// The parts the xDLMS services share: invoke-id-and-priority, attribute and method descriptors with
// OBIS logical names, selective access (range and entry descriptors), Get-Data-Result [AP-3, AP-4].

import type { Reader, Writer } from './axdr.ts';
import { type Data, readData, writeData } from './data.ts';
import { fail } from './errors.ts';

/** [AP-3.1] One byte: bits 0–3 the invoke id, bit 6 confirmed, bit 7 high priority. */
export interface Invoke {
  id: number;
  confirmed: boolean;
  highPriority: boolean;
}

export function readInvoke(r: Reader): Invoke {
  const b = r.u8('invoke-id-and-priority');
  // Bits 4 and 5 are reserved; a receiver ignores them [AP-3.1].
  return { id: b & 0x0f, confirmed: (b & 0x40) !== 0, highPriority: (b & 0x80) !== 0 };
}

export function writeInvoke(w: Writer, i: Invoke): void {
  if (!Number.isInteger(i.id) || i.id < 0 || i.id > 15) throw new RangeError(`invoke id ${i.id} [AP-3.1]`);
  w.u8(i.id | (i.confirmed ? 0x40 : 0) | (i.highPriority ? 0x80 : 0));
}

/** [AP-3.2] An OBIS logical name, written `a.b.c.d.e.f` (each 0–255). */
export type Obis = string;
const OBIS = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export function obisToBytes(obis: Obis): Uint8Array {
  const m = OBIS.exec(obis);
  const parts = m ? m.slice(1).map(Number) : [];
  if (parts.length !== 6 || parts.some((p) => p > 255))
    throw new RangeError(`not an OBIS code: ${obis} [AP-3.2]`);
  return Uint8Array.from(parts);
}

export function obisFromBytes(b: Uint8Array): Obis {
  return Array.from(b).join('.');
}

/** [AP-3.3] Cosem-Attribute-Descriptor. */
export interface AttributeDescriptor {
  classId: number;
  instance: Obis;
  attributeId: number;
}

/** [AP-3.4] Cosem-Method-Descriptor. */
export interface MethodDescriptor {
  classId: number;
  instance: Obis;
  methodId: number;
}

function readObis(r: Reader): Obis {
  return obisFromBytes(r.take(6, 'logical name'));
}

export function readAttribute(r: Reader): AttributeDescriptor {
  const classId = r.u16('class id');
  const instance = readObis(r);
  return { classId, instance, attributeId: r.i8('attribute id') };
}

export function writeAttribute(w: Writer, a: AttributeDescriptor): void {
  writeDescriptor(w, a.classId, a.instance, a.attributeId, 'attribute');
}

export function readMethod(r: Reader): MethodDescriptor {
  const classId = r.u16('class id');
  const instance = readObis(r);
  return { classId, instance, methodId: r.i8('method id') };
}

export function writeMethod(w: Writer, m: MethodDescriptor): void {
  writeDescriptor(w, m.classId, m.instance, m.methodId, 'method');
}

function writeDescriptor(w: Writer, classId: number, instance: Obis, id: number, what: string): void {
  if (!Number.isInteger(classId) || classId < 0 || classId > 0xffff)
    throw new RangeError(`class id ${classId}`);
  if (!Number.isInteger(id) || id < -128 || id > 127) throw new RangeError(`${what} id ${id} [AP-3.3]`);
  w.u16(classId)
    .bytes(obisToBytes(instance))
    .u8(id & 0xff);
}

/** [AP-4.1] Selective-Access-Descriptor: a selector and its parameters as Data. */
export interface AccessSelection {
  selector: number;
  parameters: Data;
}

/** [AP-4.1] OPTIONAL: 0x00 absent, 0x01 present. */
export function readOptionalAccess(r: Reader): AccessSelection | undefined {
  if (!readPresence(r, 'access-selection')) return undefined;
  const selector = r.u8('access selector');
  return { selector, parameters: readData(r) };
}

export function writeOptionalAccess(w: Writer, a: AccessSelection | undefined): void {
  if (!a) {
    w.u8(0);
    return;
  }
  w.u8(1).u8(a.selector);
  writeData(w, a.parameters);
}

/** [AP-1.4] A presence flag of an OPTIONAL or DEFAULT component is 0x00 or 0x01, nothing else. */
export function readPresence(r: Reader, what: string): boolean {
  const at = r.offset;
  const b = r.u8(what);
  if (b > 1) fail('bad_value', 'AP-1.4', `${what}: presence flag ${b}`, at);
  return b === 1;
}

/** [AP-4.3] A capture object: what the profile's columns are (and a selected value names). */
export interface CaptureObject {
  classId: number;
  logicalName: Obis;
  attributeIndex: number;
  dataIndex: number;
}

/** [AP-4.2] Range descriptor (selector 1) of a profile generic's buffer. */
export interface RangeDescriptor {
  restrictingObject: CaptureObject;
  from: Data;
  to: Data;
  /** Empty: every column. */
  selectedValues: CaptureObject[];
}

/** [AP-4.4] Entry descriptor (selector 2): entries and columns by number, from 1; 0 = to the last. */
export interface EntryDescriptor {
  fromEntry: number;
  toEntry: number;
  fromSelectedValue: number;
  toSelectedValue: number;
}

export function captureObjectToData(c: CaptureObject): Data {
  return {
    type: 'structure',
    items: [
      { type: 'long-unsigned', value: c.classId },
      { type: 'octet-string', value: obisToBytes(c.logicalName) },
      { type: 'integer', value: c.attributeIndex },
      { type: 'long-unsigned', value: c.dataIndex },
    ],
  };
}

/** [AP-4.3] A capture object from its Data, or null when it is not that shape. */
export function captureObjectFromData(d: Data): CaptureObject | null {
  if (d.type !== 'structure' || d.items.length !== 4) return null;
  const [cls, ln, attr, idx] = d.items;
  if (cls?.type !== 'long-unsigned' || ln?.type !== 'octet-string' || ln.value.length !== 6) return null;
  if (attr?.type !== 'integer' || idx?.type !== 'long-unsigned') return null;
  return {
    classId: cls.value,
    logicalName: obisFromBytes(ln.value),
    attributeIndex: attr.value,
    dataIndex: idx.value,
  };
}

export function rangeToAccess(rd: RangeDescriptor): AccessSelection {
  return {
    selector: 1,
    parameters: {
      type: 'structure',
      items: [
        captureObjectToData(rd.restrictingObject),
        rd.from,
        rd.to,
        { type: 'array', items: rd.selectedValues.map(captureObjectToData) },
      ],
    },
  };
}

/** [AP-4.2] The range descriptor in an access selection, or null when it is not one. */
export function rangeFromAccess(a: AccessSelection): RangeDescriptor | null {
  const p = a.parameters;
  if (a.selector !== 1 || p.type !== 'structure' || p.items.length !== 4) return null;
  const [restricting, from, to, selected] = p.items;
  const restrictingObject = restricting ? captureObjectFromData(restricting) : null;
  if (!restrictingObject || !from || !to || selected?.type !== 'array') return null;
  const selectedValues: CaptureObject[] = [];
  for (const item of selected.items) {
    const c = captureObjectFromData(item);
    if (!c) return null;
    selectedValues.push(c);
  }
  return { restrictingObject, from, to, selectedValues };
}

export function entryToAccess(e: EntryDescriptor): AccessSelection {
  return {
    selector: 2,
    parameters: {
      type: 'structure',
      items: [
        { type: 'double-long-unsigned', value: e.fromEntry },
        { type: 'double-long-unsigned', value: e.toEntry },
        { type: 'long-unsigned', value: e.fromSelectedValue },
        { type: 'long-unsigned', value: e.toSelectedValue },
      ],
    },
  };
}

export function entryFromAccess(a: AccessSelection): EntryDescriptor | null {
  const p = a.parameters;
  if (a.selector !== 2 || p.type !== 'structure' || p.items.length !== 4) return null;
  const [fe, te, fs, ts] = p.items;
  if (fe?.type !== 'double-long-unsigned' || te?.type !== 'double-long-unsigned') return null;
  if (fs?.type !== 'long-unsigned' || ts?.type !== 'long-unsigned') return null;
  return { fromEntry: fe.value, toEntry: te.value, fromSelectedValue: fs.value, toSelectedValue: ts.value };
}

/** [AP-5.3] Get-Data-Result: the data, or a data-access-result. */
export type GetDataResult = { kind: 'data'; data: Data } | { kind: 'error'; result: number };

export function readGetDataResult(r: Reader): GetDataResult {
  const at = r.offset;
  const choice = r.u8('Get-Data-Result');
  if (choice === 0) return { kind: 'data', data: readData(r) };
  if (choice === 1) return { kind: 'error', result: r.u8('data-access-result') };
  return fail('bad_tag', 'AP-5.3', `Get-Data-Result choice ${choice}`, at);
}

export function writeGetDataResult(w: Writer, g: GetDataResult): void {
  if (g.kind === 'data') {
    w.u8(0);
    writeData(w, g.data);
  } else {
    w.u8(1).u8(g.result);
  }
}
