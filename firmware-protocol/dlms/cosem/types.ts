// The shapes of the COSEM object model: objects, attributes, methods, access rights per association
// [CO-1]. Pure data; the A-XDR codec (dlms/apdu) encodes the values, this folder only says what they are.

/** [CO-1.2] An OBIS logical name written `a.b.c.d.e.f`, as dlms/apdu writes it (AP-3.2). */
export type Obis = string;

/** [CO-1.3] The A-XDR type of an attribute's value, by the names dlms/apdu uses for its data tags. */
export type AxdrType =
  | 'null-data'
  | 'array'
  | 'structure'
  | 'boolean'
  | 'bit-string'
  | 'double-long'
  | 'double-long-unsigned'
  | 'octet-string'
  | 'visible-string'
  | 'integer'
  | 'long'
  | 'unsigned'
  | 'long-unsigned'
  | 'enum'
  | 'date-time';

/** [CO-2.1] The two associations a meter here offers, by client SAP. */
export type Association = 'public' | 'reader';
export const CLIENT_SAP: Record<Association, number> = { public: 16, reader: 32 };

/** [CO-2.2] Attribute access as the object list states it (IEC 62056-6-2 attribute_access_mode). */
export type AttributeAccess = 'none' | 'read' | 'write' | 'read-write';
/** [CO-2.2] Method access: 'none' or 'access'. */
export type MethodAccess = 'none' | 'access';

export interface AttributeDef {
  id: number;
  name: string;
  type: AxdrType;
  access: Record<Association, AttributeAccess>;
}

export interface MethodDef {
  id: number;
  name: string;
  /** The type of the method's parameter. */
  param: AxdrType;
  access: Record<Association, MethodAccess>;
}

/** [CO-1.1] The interface classes used here, with the version we implement. */
export const CLASSES = {
  data: { id: 1, version: 0 },
  register: { id: 3, version: 0 },
  profileGeneric: { id: 7, version: 1 },
  clock: { id: 8, version: 0 },
  associationLn: { id: 15, version: 1 },
  sapAssignment: { id: 17, version: 0 },
  disconnectControl: { id: 70, version: 0 },
  account: { id: 111, version: 0 },
  credit: { id: 112, version: 0 },
} as const;
export type ClassName = keyof typeof CLASSES;

/** [CO-4.1] A capture object: which attribute of which object a profile's column holds. */
export interface CaptureObject {
  classId: number;
  obis: Obis;
  attribute: number;
  /** 0: the whole attribute. */
  dataIndex: number;
}

export interface CosemObject {
  obis: Obis;
  name: string;
  className: ClassName;
  classId: number;
  version: number;
  attributes: AttributeDef[];
  methods: MethodDef[];
  /** [CO-3.1] Register (class 3): the scaler (power of ten) and unit of attribute 2. */
  scalerUnit?: { scaler: number; unit: UnitName };
  /** [CO-4.1] Profile generic (class 7): its columns, in order, and its capture period in seconds. */
  capture?: { objects: CaptureObject[]; periodS: number };
}

/** [CO-3.2] DLMS unit codes (IEC 62056-6-2, the unit enumeration) of the units used here. */
export const UNITS = {
  min: 6,
  s: 7,
  currency: 10,
  W: 27,
  VA: 28,
  var: 29,
  Wh: 30,
  VAh: 31,
  A: 33,
  V: 35,
  Hz: 44,
  count: 255,
} as const;
export type UnitName = keyof typeof UNITS;

/** A register's value with its scaler and unit [CO-3.1]: the physical value is `value × 10^scaler unit`. */
export interface ScaledValue {
  value: number;
  scaler: number;
  unit: UnitName;
}
