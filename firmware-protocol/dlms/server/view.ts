// What the application server is given to answer from [AS-1.2]: the meter now, its history, the
// association asking, the time. Plain data: the edge builds it, the server only reads it.

import type { Sample } from '../../mqtt/vocabulary.ts';
import type { ConformanceBit } from '../apdu/initiate.ts';
import type { Association } from '../cosem/types.ts';
import type { MeterSnapshot } from '../cosem/values.ts';

export interface MeterView {
  /** The meter's time now, ms (the clock's attribute 2). */
  now: number;
  snapshot: MeterSnapshot;
  /** [AS-5.1] The meter's own samples, oldest first, as many as it keeps. */
  history: readonly Sample[];
  /** Cumulative apparent energy (VAh) at history[0] [CO-6.7]. */
  vahAtStart: number;
  /** [AS-5.1] The most samples the meter keeps: a profile's profile_entries is derived from it. */
  historyLimit: number;
}

/** An association in force [AS-2]. */
export interface AssociationInForce {
  who: Association;
  clientSap: number;
  conformance: ConformanceBit[];
  /** [AP-5.5] The longest APDU this server may send to the client. */
  clientMaxPdu: number;
  lls: boolean;
}

export interface ServerConfig {
  /** [AS-2.1] The LLS password of the meter reader (client SAP 32). */
  readerPassword: string;
  /** [AS-2.4] This server's max receive PDU size, announced in the AARE. */
  maxReceivePduSize: number;
  /** [AS-3.3] The clock's offset east of UTC in minutes (India 330, CO-7.6). */
  offsetMin: number;
  /** [AS-2.5] Server SAP of the management logical device (the HDLC upper address). */
  serverSap: number;
}

export const DEFAULT_SERVER_CONFIG: ServerConfig = {
  readerPassword: 'ABCDEFGH',
  maxReceivePduSize: 1024,
  offsetMin: 330,
  serverSap: 1,
};
