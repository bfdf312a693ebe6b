// What a DLMS client asks of its session, and what it gets back [CL-1 – CL-6]; and the requests a bridge
// builds from them: a profile's buffer by range [CL-8.1]. Pure.

import type {
  AccessSelection,
  AttributeDescriptor,
  GetDataResult,
  MethodDescriptor,
  Obis,
} from '../apdu/cosem.ts';
import { rangeToAccess } from '../apdu/cosem.ts';
import type { Data } from '../apdu/data.ts';
import { dateTimeFromInstant, encodeDateTime } from '../apdu/datetime.ts';
import type { AttributeWithSelection } from '../apdu/get.ts';
import type { ConformanceBit } from '../apdu/initiate.ts';

export type Call =
  | { kind: 'associate' }
  | { kind: 'get'; attribute: AttributeDescriptor; access?: AccessSelection }
  | { kind: 'get-list'; items: AttributeWithSelection[] }
  | { kind: 'set'; attribute: AttributeDescriptor; value: Data }
  | { kind: 'action'; method: MethodDescriptor; parameters?: Data }
  | { kind: 'release' };

export interface Failure {
  kind: 'failed';
  /**
   * refused: the server said no (AARE, a data-access-result or action-result, CL-5.1); exception: an
   * ExceptionResponse (CL-5.2); timeout: no answer after the repeats (CL-3.3); lost: the link went down;
   * protocol: an answer that breaks the rules (CL-4); not_associated, busy: refused before sending.
   */
  reason: 'refused' | 'exception' | 'timeout' | 'lost' | 'protocol' | 'not_associated' | 'busy';
  message: string;
  /** The data-access-result or action-result, when the server gave one. */
  result?: number;
}

export type Outcome =
  | { kind: 'associated'; conformance: ConformanceBit[]; serverMaxPdu: number }
  | { kind: 'data'; data: Data }
  | { kind: 'list'; results: GetDataResult[] }
  | { kind: 'result'; result: 0; returned?: GetDataResult }
  | { kind: 'released' }
  | Failure;

export const attribute = (classId: number, instance: Obis, attributeId: number): AttributeDescriptor => ({
  classId,
  instance,
  attributeId,
});

const CLOCK_OBIS = '0.0.1.0.0.255';

/**
 * [CL-8.1] Selective access by range on a profile's buffer: rows whose clock lies in [fromMs, toMs],
 * every column, the bounds written as the meter's local date-times (India: 330 minutes east of UTC).
 */
export function rangeAccess(fromMs: number, toMs: number, offsetMinutes: number): AccessSelection {
  const at = (ms: number): Data => ({
    type: 'octet-string',
    value: encodeDateTime(dateTimeFromInstant(ms, offsetMinutes)),
  });
  return rangeToAccess({
    restrictingObject: { classId: 8, logicalName: CLOCK_OBIS, attributeIndex: 2, dataIndex: 0 },
    from: at(fromMs),
    to: at(toMs),
    selectedValues: [],
  });
}
