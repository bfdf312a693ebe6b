// The application server's profiles, block transfer both ways and the associated client SAP [AS-4,
// AS-6, AS-7.3, AS-1.4]: the exchanges that take more than one request.
import { describe, expect, it } from 'vitest';
import { decodeApdu } from '../apdu/apdu.ts';
import { rangeToAccess } from '../apdu/cosem.ts';
import { decodeData } from '../apdu/data.ts';
import { dateTimeFromInstant, encodeDateTime } from '../apdu/datetime.ts';
import { OBIS } from '../cosem/obis.ts';
import { answerCommand } from './server.ts';
import { ask, associated, bytes, hex, NOW, view } from './test-helpers.ts';

describe('profiles [AS-4]', () => {
  const range = (fromMs: number, toMs: number) =>
    rangeToAccess({
      restrictingObject: { classId: 8, logicalName: OBIS.clock, attributeIndex: 2, dataIndex: 0 },
      from: { type: 'octet-string', value: encodeDateTime(dateTimeFromInstant(fromMs, 330)) },
      to: { type: 'octet-string', value: encodeDateTime(dateTimeFromInstant(toMs, 330)) },
      selectedValues: [],
    });
  const invoke = { id: 2, confirmed: true, highPriority: true };
  const buffer = { classId: 7, instance: OBIS.blockLoadProfile, attributeId: 2 };

  it('[AS-4.2, CO-7.8] block load by range: the blocks whose end lies in [from, to]', () => {
    // Blocks end at 13:30, 13:15, 13:00, ... IST; 12:45..13:15 IST holds three.
    const r = ask(associated('reader'), {
      type: 'get-request-normal',
      invoke,
      attribute: buffer,
      access: range(NOW - 45 * 60_000, NOW - 15 * 60_000),
    });
    const d = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
    if (!d?.ok || d.value.type !== 'get-response-normal' || d.value.result.kind !== 'data')
      throw new Error('no data');
    const rows = d.value.result.data;
    expect(rows.type === 'array' && rows.items.length).toBe(3);
    // Each block of 15 one-minute samples at 1 kW: 250 Wh (the first counts from the sample before it).
    const first = rows.type === 'array' ? rows.items[0] : undefined;
    expect(first?.type === 'structure' && first.items[2]).toEqual({
      type: 'double-long-unsigned',
      value: 250,
    });
  });

  it('[AS-4.2] a range on another column than the clock: scope-of-access-violated', () => {
    const a = range(0, NOW);
    if (a.parameters.type === 'structure')
      a.parameters.items[0] = {
        type: 'structure',
        items: [
          { type: 'long-unsigned', value: 3 },
          { type: 'octet-string', value: bytes('01000C0700FF') },
          { type: 'integer', value: 2 },
          { type: 'long-unsigned', value: 0 },
        ],
      };
    const r = ask(associated('reader'), { type: 'get-request-normal', invoke, attribute: buffer, access: a });
    expect(r.kind === 'reply' && hex(r.apdu)).toBe('C401C2010D');
  });

  const entries = (fe: number, te: number, fv: number, tv: number) => ({
    selector: 2,
    parameters: {
      type: 'structure' as const,
      items: [
        { type: 'double-long-unsigned' as const, value: fe },
        { type: 'double-long-unsigned' as const, value: te },
        { type: 'long-unsigned' as const, value: fv },
        { type: 'long-unsigned' as const, value: tv },
      ],
    },
  });
  const read = (
    access: ReturnType<typeof entries> | { selector: number; parameters: { type: 'null-data' } },
  ) => {
    const r = ask(associated('reader', 0xffff), {
      type: 'get-request-normal',
      invoke,
      attribute: buffer,
      access,
    });
    return r;
  };
  const rowsOf = (r: ReturnType<typeof read>) => {
    const d = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
    if (!d?.ok || d.value.type !== 'get-response-normal' || d.value.result.kind !== 'data')
      throw new Error('no data');
    const rows = d.value.result.data;
    if (rows.type !== 'array') throw new Error('not rows');
    return rows.items.map((row) => (row.type === 'structure' ? row.items : []));
  };

  it('[AS-4.5] by entry (selector 2): entries 1..1 is the oldest row, 0 as the last entry means to the end', () => {
    const all = rowsOf(read(entries(1, 0, 1, 0)));
    expect(all.length).toBeGreaterThan(3);
    expect(rowsOf(read(entries(1, 1, 1, 0)))).toEqual([all[0]]);
    expect(rowsOf(read(entries(2, 3, 1, 0)))).toEqual(all.slice(1, 3));
    expect(rowsOf(read(entries(all.length, 0, 1, 0)))).toEqual([all[all.length - 1]]);
  });

  it('[AS-4.5] by entry with selected values: columns 2..3 only', () => {
    const all = rowsOf(read(entries(1, 0, 1, 0)));
    expect(rowsOf(read(entries(1, 2, 2, 3)))).toEqual(all.slice(0, 2).map((row) => row.slice(1, 3)));
  });

  it('[AS-4.5] by entry: from 0, from after to, or a column past the profile is scope-of-access-violated; another shape type-unmatched', () => {
    for (const bad of [entries(0, 1, 1, 0), entries(3, 2, 1, 0), entries(1, 1, 1, 99)]) {
      const r = read(bad);
      expect(r.kind === 'reply' && hex(r.apdu)).toBe('C401C2010D');
    }
    const r = read({ selector: 2, parameters: { type: 'null-data' } });
    expect(r.kind === 'reply' && hex(r.apdu)).toBe('C401C2010C');
  });

  it('[AS-4.2] a selector other than 1 and 2: scope-of-access-violated', () => {
    const r = read({ selector: 3, parameters: { type: 'null-data' } });
    expect(r.kind === 'reply' && hex(r.apdu)).toBe('C401C2010D');
  });

  it('[AS-6.1, AS-6.2] a buffer over the client PDU size comes in blocks, each asked for, and reassembles', () => {
    let s = associated('reader', 128);
    let r = ask(s, { type: 'get-request-normal', invoke, attribute: buffer });
    const chunks: Uint8Array[] = [];
    for (let n = 1; ; n++) {
      if (r.kind !== 'reply') throw new Error('command?');
      expect(r.apdu.length).toBeLessThanOrEqual(128);
      const d = decodeApdu(r.apdu);
      if (!d.ok || d.value.type !== 'get-response-with-datablock') throw new Error(hex(r.apdu));
      const b = d.value.block;
      expect(b.blockNumber).toBe(n);
      if (b.result.kind !== 'raw') throw new Error('refused');
      chunks.push(b.result.raw);
      s = r.session;
      if (b.last) break;
      r = ask(s, { type: 'get-request-next', invoke, blockNumber: n });
    }
    const whole = decodeData(Buffer.concat(chunks));
    expect(whole.ok && whole.value.type === 'array' && whole.value.items.length).toBe(8); // 2 h of closed 15-min blocks (AS-4.7)
    expect(chunks.length).toBeGreaterThan(2);
    const after = ask(s, { type: 'get-request-next', invoke, blockNumber: chunks.length });
    expect(after.kind === 'reply' && hex(after.apdu).slice(-4)).toBe('0110'); // no-long-get-in-progress
  });

  it('[AS-6.3] asking for the wrong block ends the transfer: data-block-number-invalid', () => {
    const s = associated('reader', 128);
    const r = ask(s, { type: 'get-request-normal', invoke, attribute: buffer });
    const wrong = ask(r.session, { type: 'get-request-next', invoke, blockNumber: 5 });
    expect(wrong.kind === 'reply' && hex(wrong.apdu)).toBe('C402C201000000050113');
    expect(wrong.session.blocks).toHaveLength(0);
  });

  it('[AS-6.4] GET with-list: a result per item in order, refusals among them', () => {
    const items = [
      { attribute: { classId: 3, instance: OBIS.voltage, attributeId: 2 } },
      { attribute: { classId: 3, instance: OBIS.phaseCurrent, attributeId: 2 } },
      { attribute: { classId: 8, instance: OBIS.clock, attributeId: 3 } },
    ];
    const r = ask(associated('reader'), { type: 'get-request-with-list', invoke, items });
    expect(r.kind === 'reply' && hex(r.apdu)).toBe('C403C203001259D8010B0010FEB6');
  });
});

describe('SET in blocks, selected columns, the associated SAP [AS-7.3, AS-4.2, AS-1.4]', () => {
  const invoke = { id: 3, confirmed: true, highPriority: true };
  const mode = { classId: 1, instance: OBIS.mode, attributeId: 2 };

  // enum 2 (`16 02`) in two blocks of one byte each, as a client with a tiny PDU would send it.
  const block = (n: number, last: boolean, raw: number) => ({
    last,
    blockNumber: n,
    raw: Uint8Array.of(raw),
  });
  const first = {
    type: 'set-request-with-first-datablock' as const,
    invoke,
    attribute: mode,
    block: block(1, false, 0x16),
  };
  const second = { type: 'set-request-with-datablock' as const, invoke, block: block(2, true, 0x02) };

  it('[AS-7.3, AP-6.2] a SET value in blocks is put together, then decided as a normal SET', () => {
    const r1 = ask(associated('reader'), first);
    expect(r1.kind === 'reply' && hex(r1.apdu)).toBe('C502C300000001');
    const r2 = ask(r1.session, second);
    expect(r2.kind === 'command' && r2.command).toEqual({ op: 'set_mode', mode: 'measurement' });
    if (r2.kind === 'command') expect(hex(answerCommand(r2.pending, { ok: true }))).toBe('C503C30000000002');
    expect(r2.session.setBlocks).toBeNull();
  });

  it('[AS-7.3] a SET block out of turn ends it: data-block-number-invalid; a block with none going: no-long-set-in-progress', () => {
    const r1 = ask(associated('reader'), first);
    const r2 = ask(r1.session, { ...second, block: block(7, true, 0x02) });
    expect(r2.kind === 'reply' && hex(r2.apdu)).toBe('C503C31300000007');
    expect(r2.session.setBlocks).toBeNull();
    const r3 = ask(associated('reader'), second);
    expect(r3.kind === 'reply' && hex(r3.apdu)).toBe('C503C31200000002');
  });

  it('[AS-4.2] selected values pick the columns asked for, in that order', () => {
    const NOW_RANGE = rangeToAccess({
      restrictingObject: { classId: 8, logicalName: OBIS.clock, attributeIndex: 2, dataIndex: 0 },
      from: { type: 'octet-string', value: encodeDateTime(dateTimeFromInstant(NOW - 15 * 60_000, 330)) },
      to: { type: 'octet-string', value: encodeDateTime(dateTimeFromInstant(NOW, 330)) },
      selectedValues: [
        { classId: 112, logicalName: OBIS.credit, attributeIndex: 2, dataIndex: 0 },
        { classId: 8, logicalName: OBIS.clock, attributeIndex: 2, dataIndex: 0 },
      ],
    });
    const r = ask(associated('reader'), {
      type: 'get-request-normal',
      invoke,
      attribute: { classId: 7, instance: OBIS.blockLoadProfile, attributeId: 2 },
      access: NOW_RANGE,
    });
    const d = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
    if (!d?.ok || d.value.type !== 'get-response-normal' || d.value.result.kind !== 'data')
      throw new Error('no data');
    const rows = d.value.result.data;
    expect(rows.type === 'array' && rows.items.length).toBe(2); // blocks ending 13:15 and 13:30 IST
    // The block [13:15, 13:30) holds the samples before 13:30: the last has the balance 50,000 − 119.
    const last = rows.type === 'array' ? rows.items[1] : undefined;
    expect(last?.type === 'structure' && last.items.map((c) => c.type)).toEqual([
      'double-long',
      'octet-string',
    ]);
    expect(last?.type === 'structure' && last.items[0]).toEqual({ type: 'double-long', value: 50_000 - 119 });
  });

  it('[AS-1.4] a request from another client SAP than the one associated is served as with no association', () => {
    const r = ask(associated('public'), bytes('C0 01 C1 00 03 01 00 0C 07 00 FF 02 00'), view(), 32);
    expect(r.kind === 'reply' && hex(r.apdu)).toBe('D80101');
  });
});

describe('the negotiated PDU size [AS-6.1]', () => {
  it("[AS-6.1] a client proposing 65535 still gets the reader's object list in blocks of at most the meter's 1024 bytes", () => {
    // Gurux's reader proposes 65535 and holds far less; a meter answers within its own buffer.
    const r = ask(associated('reader', 0xffff), {
      type: 'get-request-normal',
      invoke: { id: 1, confirmed: true, highPriority: true },
      attribute: { classId: 15, instance: OBIS.associationCurrent, attributeId: 2 },
    });
    const d = r.kind === 'reply' ? decodeApdu(r.apdu) : null;
    expect(d?.ok && d.value.type).toBe('get-response-with-datablock');
    expect(r.kind === 'reply' && r.apdu.length).toBeLessThanOrEqual(1024);
    expect(r.kind === 'reply' && r.apdu.length).toBeGreaterThan(900);
  });
});
