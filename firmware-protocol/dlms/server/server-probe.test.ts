// A probe over the server, as a reader of every object does it (Gurux's reads the object list, then every
// attribute it may read, and stops at the first data-access-result other than read-write-denied): every
// object a `basic` and a `full` meter lists, every readable attribute, read through `serve` with block
// transfer followed to the end. A meter lists exactly what it serves [CO-2.5, CO-6.4, AS-3.1, AS-3.6].
import { describe, expect, it } from 'vitest';
import { decodeApdu } from '../apdu/apdu.ts';
import { type Data, decodeData } from '../apdu/data.ts';
import { DAR } from '../apdu/errors.ts';
import { OBIS } from '../cosem/obis.ts';
import type { Session } from './server.ts';
import { ask, associated, history, view } from './test-helpers.ts';

const invoke = { id: 5, confirmed: true, highPriority: true };

type Read = { kind: 'data'; data: Data } | { kind: 'error'; result: number };

/** One GET, block transfer followed to the end; the session moves on. */
function read(
  s: { session: Session },
  v: ReturnType<typeof view>,
  classId: number,
  obis: string,
  id: number,
) {
  let r = ask(
    s.session,
    {
      type: 'get-request-normal',
      invoke,
      attribute: { classId, instance: obis, attributeId: id },
    },
    v,
  );
  const raw: number[] = [];
  for (;;) {
    if (r.kind !== 'reply') throw new Error('a GET became a command');
    s.session = r.session;
    const d = decodeApdu(r.apdu);
    if (!d.ok) throw new Error(d.error.message);
    const a = d.value;
    if (a.type === 'get-response-normal') return a.result as Read;
    if (a.type !== 'get-response-with-datablock') throw new Error(a.type);
    if (a.block.result.kind === 'error') return { kind: 'error', result: a.block.result.result } as Read;
    raw.push(...a.block.result.raw);
    if (a.block.last) {
      const whole = decodeData(Uint8Array.from(raw));
      if (!whole.ok) throw new Error('blocks do not make one Data');
      return { kind: 'data', data: whole.value } as Read;
    }
    r = ask(s.session, { type: 'get-request-next', invoke, blockNumber: a.block.blockNumber }, v);
  }
}

interface Listed {
  classId: number;
  obis: string;
  readable: number[];
}

/** [CO-2.6] The object list's entries: class, logical name, the attributes with read access (1 or 3). */
function listed(list: Data): Listed[] {
  if (list.type !== 'array') throw new Error('object list is not an array');
  return list.items.map((e) => {
    if (e.type !== 'structure') throw new Error('entry');
    const [cls, , ln, rights] = e.items;
    if (cls?.type !== 'long-unsigned' || ln?.type !== 'octet-string' || rights?.type !== 'structure')
      throw new Error('entry shape');
    const attrs = rights.items[0];
    if (attrs?.type !== 'array') throw new Error('attribute access');
    const readable = attrs.items.flatMap((a) => {
      if (a.type !== 'structure') return [];
      const [id, mode] = a.items;
      return id?.type === 'integer' && mode?.type === 'enum' && (mode.value & 1) === 1 ? [id.value] : [];
    });
    return { classId: cls.value, obis: [...ln.value].join('.'), readable };
  });
}

const UNMEASURED_BY_BASIC = [
  OBIS.phaseCurrent,
  OBIS.neutralCurrent,
  OBIS.powerFactor,
  OBIS.apparentPower,
  OBIS.reactivePower,
];

describe.each(['basic', 'full'] as const)(
  'a %s meter lists exactly what it serves [CO-2.5, CO-6.4]',
  (model) => {
    // A full meter's samples carry what it measures (MC-4.3); a basic meter's do not.
    const samples = history().map((x) =>
      model === 'basic'
        ? x
        : { ...x, current: 4.35, power_factor: 0.98, apparent_power: 1020.4, reactive_power: 203.1 },
    );
    const v = view({ history: samples }, true, model);

    it.each(['reader', 'public'] as const)(
      '[AS-3.1, AS-3.6] the %s association reads every attribute of every object it lists: none object-unavailable or undefined',
      (who) => {
        const s = { session: associated(who, 1200, v) };
        const list = read(s, v, 15, OBIS.associationCurrent, 2);
        expect(list.kind).toBe('data');
        const objects = listed((list as { data: Data }).data);
        expect(objects.length).toBeGreaterThan(5);
        const refusals: string[] = [];
        let reads = 0;
        for (const o of objects) {
          for (const id of o.readable) {
            const r = read(s, v, o.classId, o.obis, id);
            reads++;
            if (r.kind === 'error' && r.result !== DAR.readWriteDenied)
              refusals.push(`${o.classId}/${o.obis}/${id}: ${r.result}`);
          }
        }
        expect(refusals).toEqual([]);
        expect(reads).toBeGreaterThan(objects.length);
      },
    );

    it('[CO-6.4, CO-4.1] the object list and every profile column name only objects the meter has', () => {
      const s = { session: associated('reader', 1200, v) };
      const objects = listed((read(s, v, 15, OBIS.associationCurrent, 2) as { data: Data }).data);
      const names = new Set(objects.map((o) => o.obis));
      for (const obis of UNMEASURED_BY_BASIC) expect(names.has(obis)).toBe(model === 'full');
      for (const p of objects.filter((o) => o.classId === 7)) {
        const cols = read(s, v, 7, p.obis, 3);
        if (cols.kind !== 'data' || cols.data.type !== 'array') throw new Error(`${p.obis} capture objects`);
        for (const c of cols.data.items) {
          if (c.type !== 'structure' || c.items[1]?.type !== 'octet-string')
            throw new Error('capture object');
          expect(names, `${p.obis} captures ${[...c.items[1].value].join('.')}`).toContain(
            [...c.items[1].value].join('.'),
          );
        }
      }
    });

    it('[AS-3.1] a GET of a register the meter does not have is object-undefined; one it has, a value', () => {
      const s = { session: associated('reader', 1200, v) };
      const current = read(s, v, 3, OBIS.phaseCurrent, 2);
      if (model === 'basic') expect(current).toEqual({ kind: 'error', result: DAR.objectUndefined });
      else expect(current).toEqual({ kind: 'data', data: { type: 'double-long-unsigned', value: 4350 } });
      expect(read(s, v, 3, OBIS.voltage, 2).kind).toBe('data');
    });
  },
);
