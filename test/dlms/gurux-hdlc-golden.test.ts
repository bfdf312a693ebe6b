// [HD-6, HD-5.1, AS-2, AS-8] Golden exchange: the bytes Gurux's ANSI C client example (GuruxDLMS.c
// 9.0.2608.1701, `gurux.dlms.client.bin -S <pty> -c 32 -s 16 -l 1 -a Low -P ABCDEFGH`) sent to
// `meterstack meter --protocol dlms` over HDLC on 2026-11-26, and the bytes our meter answered, byte for
// byte, through the same pure pieces the meter runs (the server link state machine and the COSEM server).
// Each answer is also taken apart against IEC 62056-46 and the Green Book, field by field: the example
// printed "Notification received" for the UA and the AARE, and these checks show the bytes are right.
// (The cause was the example's own: `readDLMSPacket` leaves `isNotify` unset, which only the wrapper's
// path clears; with `unsigned char isNotify = 0;` it reads the whole meter over HDLC: firmware-protocol/dlms/README.md.)

import { describe, expect, it } from 'vitest';
import { fcs16 } from '../../firmware-protocol/dlms/hdlc/fcs16.ts';
import { encodeFrame } from '../../firmware-protocol/dlms/hdlc/frame.ts';
import {
  DEFAULT_LINK_CONFIG,
  INITIAL_LINK,
  type LinkState,
  step,
} from '../../firmware-protocol/dlms/hdlc/link.ts';
import { FrameSplitter } from '../../firmware-protocol/dlms/hdlc/splitter.ts';
import { NEW_SESSION, type Session, serve } from '../../firmware-protocol/dlms/server/server.ts';
import { CONFIG, view } from '../../firmware-protocol/dlms/server/test-helpers.ts';

const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/\s+/g, ''), 'hex'));
const hex = (b: Uint8Array) =>
  Buffer.from(b)
    .toString('hex')
    .toUpperCase()
    .replace(/(..)(?!$)/g, '$1 ');

/** What Gurux's client sent, in order, and what our meter answered (recorded from the pty). */
const EXCHANGE: { what: string; request: string; answer: string }[] = [
  {
    what: 'SNRM (no parameters) → UA with the negotiated parameters',
    request: '7E A0 08 02 21 41 93 50 B4 7E',
    answer:
      '7E A0 1F 41 02 21 73 B2 6D 81 80 12 05 01 80 06 01 80 07 04 00 00 00 01 08 04 00 00 00 01 53 3B 7E',
  },
  {
    what: 'I-frame with the AARQ (LN, LLS "ABCDEFGH") → I-frame with the AARE',
    request:
      '7E A0 45 02 21 41 10 95 BF E6 E6 00 60 36 A1 09 06 07 60 85 74 05 08 01 01 8A 02 07 80 8B 07 60 85 74 05 08 02 01 AC 0A 80 08 41 42 43 44 45 46 47 48 BE 10 04 0E 01 00 00 00 06 5F 1F 04 00 40 1E 1D FF FF 3B C3 7E',
    answer:
      '7E A0 45 41 02 21 30 E7 24 E6 E7 00 61 36 A1 09 06 07 60 85 74 05 08 01 01 A2 03 02 01 00 A3 05 A1 03 02 01 00 88 02 07 80 89 07 60 85 74 05 08 02 01 BE 10 04 0E 08 00 06 5F 1F 04 00 00 1A 1D 04 00 00 07 4D B7 7E',
  },
];

/** Runs Gurux's frames through the server link and the COSEM server, as simulator/dlms-hdlc.ts does. */
function answers(requests: string[]): string[] {
  const config = { ...DEFAULT_LINK_CONFIG, address: { bytes: 2 as const, upper: 1, lower: 16 } };
  let link: LinkState = INITIAL_LINK;
  let session: Session = NEW_SESSION;
  const out: string[] = [];
  const splitter = new FrameSplitter();
  const run = (event: Parameters<typeof step>[2]) => {
    const r = step(config, link, event);
    link = r.state;
    for (const e of r.effects) {
      if (e.kind === 'send') out.push(hex(encodeFrame(e.frame)));
      if (e.kind === 'deliver') {
        const s = serve(CONFIG, session, link.client ?? 0, e.apdu, view());
        if (s.kind !== 'reply') throw new Error('no reply');
        session = s.session;
        run({ kind: 'respond', apdu: s.apdu, atMs: 0 });
      }
    }
  };
  for (const r of requests)
    for (const p of splitter.push(bytes(r)))
      if (p.kind === 'frame') run({ kind: 'frame', frame: p.frame, atMs: 0 });
  return out;
}

describe("Gurux's C client over HDLC, byte for byte [HD-6, HD-5.1, AS-2]", () => {
  it('our UA and AARE are the bytes Gurux received', () => {
    expect(answers(EXCHANGE.map((x) => x.request))).toEqual(EXCHANGE.map((x) => x.answer));
  });

  it('[HD-2, HD-3, HD-6.1] the UA: frame type 3, addresses, F bit, HCS/FCS, and the IEC 62056-46 parameter field', () => {
    const ua = bytes(EXCHANGE[0]!.answer);
    expect(ua[1]! >> 4).toBe(0xa); // format type 3, no segmentation
    expect(((ua[1]! & 7) << 8) | ua[2]!).toBe(ua.length - 2); // length counts all but the flags
    expect(ua[3]).toBe(0x41); // destination: client 32, one byte, (32 << 1) | 1
    expect([...ua.subarray(4, 6)]).toEqual([0x02, 0x21]); // source: upper 1, lower 16, two bytes, last bit 1
    expect(ua[6]).toBe(0x73); // UA with F = 1, answering an SNRM with P = 1
    const hcs = fcs16(ua.subarray(1, 7));
    expect([ua[7], ua[8]]).toEqual([hcs & 0xff, hcs >> 8]);
    const fcs = fcs16(ua.subarray(1, ua.length - 3));
    expect([ua[ua.length - 3], ua[ua.length - 2]]).toEqual([fcs & 0xff, fcs >> 8]);
    // Information field: format identifier 0x81, group identifier 0x80, group length, then the four
    // parameters: max information field transmit (05) and receive (06), one byte each, 128; window
    // transmit (07) and receive (08), four bytes each, 1. No LLC header on a U-frame.
    const info = ua.subarray(9, ua.length - 3);
    expect(hex(info)).toBe('81 80 12 05 01 80 06 01 80 07 04 00 00 00 01 08 04 00 00 00 01');
    expect(info[2]).toBe(info.length - 3);
  });

  it('[HD-4.2, HD-5.1, AP-2.12] the AARE: an I-frame N(S)=0 N(R)=1 with F, the response LLC E6 E7 00, an accepted LLS association', () => {
    const f = bytes(EXCHANGE[1]!.answer);
    expect(f[6]).toBe(0x30); // I-frame: N(R)=1 (bits 7-5), F (bit 4), N(S)=0 (bits 3-1), bit 0 = 0
    expect([...f.subarray(9, 12)]).toEqual([0xe6, 0xe7, 0x00]); // LLC: destination E6, source E7 (response), quality 0
    const aare = hex(f.subarray(12, f.length - 3));
    expect(aare.startsWith('61 36 A1 09 06 07 60 85 74 05 08 01 01')).toBe(true); // AARE, LN without ciphering
    expect(aare).toContain('A2 03 02 01 00'); // result: accepted
    expect(aare).toContain('A3 05 A1 03 02 01 00'); // diagnostic: acse-service-user null
    expect(aare).toContain('89 07 60 85 74 05 08 02 01'); // mechanism: low-level security
    // InitiateResponse: no QoS, DLMS version 6, conformance, max receive PDU 1024, VAA name 0x0007 (LN).
    expect(aare.endsWith('BE 10 04 0E 08 00 06 5F 1F 04 00 00 1A 1D 04 00 00 07')).toBe(true);
  });
});
