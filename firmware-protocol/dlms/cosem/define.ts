// Small builders for the object tables, so each table reads as a list of objects and their access
// rights [CO-2] rather than as nested literals.

import {
  type AttributeAccess,
  type AttributeDef,
  type AxdrType,
  type CaptureObject,
  CLASSES,
  type ClassName,
  type CosemObject,
  type MethodDef,
  type Obis,
  type UnitName,
} from './types.ts';

/** [CO-2.3] Who may do what with an attribute: the public client's right, then the meter reader's. */
export type Rights = 'public-read' | 'public-only' | 'reader-read' | 'reader-write' | 'hidden';

const RIGHTS: Record<Rights, { public: AttributeAccess; reader: AttributeAccess }> = {
  'public-read': { public: 'read', reader: 'read' },
  'public-only': { public: 'read', reader: 'none' },
  'reader-read': { public: 'none', reader: 'read' },
  'reader-write': { public: 'none', reader: 'read-write' },
  hidden: { public: 'none', reader: 'none' },
};

export function attr(id: number, name: string, type: AxdrType, rights: Rights): AttributeDef {
  return { id, name, type, access: { ...RIGHTS[rights] } };
}

/** [CO-2.4] Methods: only the meter reader may invoke one, and only those marked `reader`. */
export function method(id: number, name: string, param: AxdrType, who: 'reader' | 'none'): MethodDef {
  return { id, name, param, access: { public: 'none', reader: who === 'reader' ? 'access' : 'none' } };
}

/** [CO-2.3] Attribute 1, the logical name, is readable in every association that lists the object. */
function logicalName(rights: Rights): AttributeDef {
  return attr(
    1,
    'logical_name',
    'octet-string',
    rights === 'public-read' || rights === 'public-only' ? rights : 'reader-read',
  );
}

export function object(
  className: ClassName,
  obis: Obis,
  name: string,
  visible: Rights,
  attributes: AttributeDef[],
  methods: MethodDef[] = [],
): CosemObject {
  const { id, version } = CLASSES[className];
  return {
    obis,
    name,
    className,
    classId: id,
    version,
    attributes: [logicalName(visible), ...attributes],
    methods,
  };
}

/** [CO-3.1] A Register (class 3): value and scaler_unit, both read-only. */
export function register(
  obis: Obis,
  name: string,
  type: AxdrType,
  scaler: number,
  unit: UnitName,
  rights: Rights = 'reader-read',
): CosemObject {
  return {
    ...object('register', obis, name, rights, [
      attr(2, 'value', type, rights),
      attr(3, 'scaler_unit', 'structure', rights),
    ]),
    scalerUnit: { scaler, unit },
  };
}

/** A Data object (class 1) with one value attribute. */
export function data(obis: Obis, name: string, type: AxdrType, rights: Rights = 'reader-read'): CosemObject {
  return object('data', obis, name, rights, [attr(2, 'value', type, rights)]);
}

/** [CO-4.1] A capture object of attribute 2 (the value) unless told otherwise. */
export function col(classId: number, obis: Obis, attribute = 2): CaptureObject {
  return { classId, obis, attribute, dataIndex: 0 };
}

/** [CO-4.2] A Profile generic (class 7, version 1) with its columns and capture period. */
export function profile(
  obis: Obis,
  name: string,
  objects: CaptureObject[],
  periodS: number,
  rights: Rights = 'reader-read',
): CosemObject {
  return {
    ...object(
      'profileGeneric',
      obis,
      name,
      rights,
      [
        attr(2, 'buffer', 'array', rights),
        attr(3, 'capture_objects', 'array', rights),
        attr(4, 'capture_period', 'double-long-unsigned', rights),
        attr(5, 'sort_method', 'enum', rights),
        attr(6, 'sort_object', 'structure', rights),
        attr(7, 'entries_in_use', 'double-long-unsigned', rights),
        attr(8, 'profile_entries', 'double-long-unsigned', rights),
      ],
      [method(1, 'reset', 'integer', 'none'), method(2, 'capture', 'integer', 'none')],
    ),
    capture: { objects, periodS },
  };
}
