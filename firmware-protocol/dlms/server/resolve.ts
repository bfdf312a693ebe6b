// Which object, attribute or method a request names, and whether this association may use it [AS-3.1,
// AS-6.1, AS-7.1]: the refusal for each case as a data-access-result or action-result. Pure.

import type { AccessSelection, AttributeDescriptor, GetDataResult, MethodDescriptor } from '../apdu/cosem.ts';
import { DAR } from '../apdu/errors.ts';
import { findObject, objectList } from '../cosem/object-list.ts';
import type { AttributeDef, CosemObject, MethodDef } from '../cosem/types.ts';
import { kindOf } from '../cosem/values.ts';
import { type ReadContext, readAttribute } from './attributes.ts';
import { ln } from './encode.ts';
import { readProfile } from './profiles.ts';

export type Found<T> = { ok: true; object: CosemObject; item: T } | { ok: false; result: number };

/**
 * [AS-3.1] The object the association sees (its object_list, CO-2.5) with that class: an object it does
 * not list is object-undefined (to this association it does not exist), another class id is
 * object-class-inconsistent, a method the class has not is object-undefined; an attribute it has not is
 * read-write-denied, as one the association may not read (a client reading every index a class could
 * have takes 3 as "skip", and the object itself is listed).
 */
function find(
  classId: number,
  obis: string,
  c: ReadContext,
): { ok: true; object: CosemObject } | { ok: false; result: number } {
  const o = findObject(obis);
  const listed = o !== undefined && objectList(c.association.who, kindOf(c.view.snapshot.info)).includes(o);
  if (!listed) return { ok: false, result: DAR.objectUndefined };
  if (o.classId !== classId) return { ok: false, result: DAR.objectClassInconsistent };
  return { ok: true, object: o };
}

export function findAttribute(d: AttributeDescriptor, c: ReadContext): Found<AttributeDef> {
  const f = find(d.classId, d.instance, c);
  if (!f.ok) return f;
  const item = f.object.attributes.find((a) => a.id === d.attributeId);
  return item ? { ok: true, object: f.object, item } : { ok: false, result: DAR.readWriteDenied };
}

export function findMethod(d: MethodDescriptor, c: ReadContext): Found<MethodDef> {
  const f = find(d.classId, d.instance, c);
  if (!f.ok) return f;
  const item = f.object.methods.find((m) => m.id === d.methodId);
  if (!item) return { ok: false, result: DAR.objectUndefined };
  // [AS-7.1] A method this association may not invoke.
  if (item.access[c.association.who] !== 'access') return { ok: false, result: DAR.readWriteDenied };
  return { ok: true, object: f.object, item };
}

/**
 * [AS-3.1, AS-3.2] A GET of one attribute: read-write-denied where the association may not read it;
 * selective access only on a profile's buffer (scope-of-access-violated elsewhere); else the value.
 */
export function getAttribute(
  d: AttributeDescriptor,
  access: AccessSelection | undefined,
  c: ReadContext,
): GetDataResult {
  const f = findAttribute(d, c);
  if (!f.ok) return { kind: 'error', result: f.result };
  const mode = f.item.access[c.association.who];
  if (mode !== 'read' && mode !== 'read-write') return { kind: 'error', result: DAR.readWriteDenied };
  if (f.object.capture !== undefined && d.attributeId !== 1)
    return readProfile(f.object, d.attributeId, access, c);
  if (access !== undefined) return { kind: 'error', result: DAR.scopeOfAccessViolated };
  if (d.attributeId === 1) return { kind: 'data', data: ln(f.object.obis) };
  return readAttribute(f.object, d.attributeId, c);
}
