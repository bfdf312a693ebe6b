// The object table's own consistency [CO-1, CO-2, CO-4], and that COSEM.md defines every rule cited.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OBIS } from './obis.ts';
import { findObject, OBJECTS, objectList, objectListEntries } from './object-list.ts';
import { BLOCK_LOAD_COLUMNS, INSTANTANEOUS_COLUMNS } from './objects-profiles.ts';
import { CLASSES, UNITS } from './types.ts';

const OBIS_SHAPE = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

describe('the object list', () => {
  it('[CO-1.4] every object has a unique OBIS code, well formed', () => {
    const seen = new Set<string>();
    for (const o of OBJECTS) {
      expect(o.obis).toMatch(OBIS_SHAPE);
      expect(o.obis.split('.').every((p) => Number(p) <= 255)).toBe(true);
      expect(seen.has(o.obis), o.obis).toBe(false);
      seen.add(o.obis);
    }
  });

  it('[CO-1.2] every named OBIS code is an object of the list', () => {
    for (const [name, obis] of Object.entries(OBIS)) expect(findObject(obis), name).toBeDefined();
  });

  it('[CO-1.1] class id and version match the class, attribute 1 is the logical name, ids ascend', () => {
    for (const o of OBJECTS) {
      expect(o.classId).toBe(CLASSES[o.className].id);
      expect(o.version).toBe(CLASSES[o.className].version);
      expect(o.attributes[0]).toMatchObject({ id: 1, name: 'logical_name', type: 'octet-string' });
      const ids = o.attributes.map((a) => a.id);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('[CO-4.1] every capture object exists, with that class and attribute', () => {
    for (const p of OBJECTS.filter((o) => o.capture)) {
      for (const c of p.capture!.objects) {
        const target = findObject(c.obis);
        expect(target, `${p.obis} captures ${c.obis}`).toBeDefined();
        expect(target!.classId, `${p.obis} → ${c.obis}`).toBe(c.classId);
        expect(
          target!.attributes.some((a) => a.id === c.attribute),
          `${c.obis}/${c.attribute}`,
        ).toBe(true);
      }
    }
  });

  it('[CO-7.1, CO-7.3] the clock is the first column of the instantaneous and block load profiles', () => {
    expect(INSTANTANEOUS_COLUMNS[0]).toEqual({ classId: 8, obis: OBIS.clock, attribute: 2, dataIndex: 0 });
    expect(BLOCK_LOAD_COLUMNS[0]!.obis).toBe(OBIS.clock);
  });

  it('[CO-3.1] every register has a scaler and a known unit; no other object has one', () => {
    for (const o of OBJECTS) {
      if (o.className !== 'register') expect(o.scalerUnit).toBeUndefined();
      else expect(UNITS[o.scalerUnit!.unit]).toBeTypeOf('number');
    }
  });
});

describe('the associations [CO-2]', () => {
  it('[CO-2.5] the public client sees the management objects and name plate only, reading them', () => {
    const list = objectList('public', { hasRelay: true, model: 'full' });
    expect(list.map((o) => o.obis).sort()).toEqual(
      [
        OBIS.associationCurrent,
        OBIS.associationPublic,
        OBIS.sapAssignment,
        OBIS.logicalDeviceName,
        OBIS.clock,
        OBIS.serialNumber,
        OBIS.manufacturer,
        OBIS.firmwareVersion,
        OBIS.meterType,
        OBIS.namePlate,
      ].sort(),
    );
    for (const o of list) {
      for (const a of o.attributes) expect(['none', 'read']).toContain(a.access.public);
      for (const m of o.methods) expect(m.access.public).toBe('none');
    }
  });

  it('[CO-2.5] the meter reader sees everything but the public association', () => {
    const list = objectList('reader', { hasRelay: true, model: 'full' });
    expect(list.length).toBe(OBJECTS.length - 1);
    expect(list.find((o) => o.obis === OBIS.associationPublic)).toBeUndefined();
  });

  it('[CO-8.4] a meter without a relay lists no disconnect control', () => {
    expect(
      objectList('reader', { hasRelay: false, model: 'full' }).find((o) => o.obis === OBIS.disconnectControl),
    ).toBe(undefined);
  });

  it('[CO-2.4] the reader may invoke exactly the relay methods and the credit update', () => {
    const invocable = OBJECTS.flatMap((o) =>
      o.methods.filter((m) => m.access.reader === 'access').map((m) => `${o.obis}/${m.name}`),
    );
    expect(invocable.sort()).toEqual(
      [
        `${OBIS.disconnectControl}/remote_disconnect`,
        `${OBIS.disconnectControl}/remote_reconnect`,
        `${OBIS.credit}/update_amount`,
      ].sort(),
    );
  });

  it("[CO-2.6] object_list entries carry the association's own access modes and the range selector", () => {
    const pub = objectListEntries('public', { hasRelay: true, model: 'full' });
    const clock = pub.find((e) => e.obis === OBIS.clock)!;
    expect(clock).toMatchObject({ classId: 8, version: 0 });
    expect(clock.attributes.slice(0, 3)).toEqual([
      { id: 1, mode: 1, selectors: [] },
      { id: 2, mode: 1, selectors: [] },
      { id: 3, mode: 0, selectors: [] },
    ]);
    const reader = objectListEntries('reader', { hasRelay: true, model: 'full' });
    const block = reader.find((e) => e.obis === OBIS.blockLoadProfile)!;
    expect(block.attributes[1]).toEqual({ id: 2, mode: 1, selectors: [1, 2] });
    const tariff = reader.find((e) => e.obis === OBIS.ebTariff)!;
    expect(tariff.attributes[1]!.mode).toBe(3);
    const relay = reader.find((e) => e.obis === OBIS.disconnectControl)!;
    expect(relay.methods).toEqual([
      { id: 1, mode: 1 },
      { id: 2, mode: 1 },
    ]);
  });

  it('[CO-5.1] no association reads or writes an LLS secret', () => {
    for (const o of OBJECTS.filter((x) => x.className === 'associationLn')) {
      expect(o.attributes.find((a) => a.id === 7)!.access).toEqual({ public: 'none', reader: 'none' });
    }
  });
});

describe('COSEM.md', () => {
  it('defines every rule the code and tests cite', () => {
    const dir = new URL('./', import.meta.url);
    const doc = readFileSync(new URL('../COSEM.md', dir), 'utf8');
    const defined = new Set(
      [...doc.matchAll(/\*\*(CO-\d+\.\d+)\*\*|^## (CO-\d+)/gm)].map((m) => m[1] ?? m[2]),
    );
    const cited = new Set<string>();
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.ts'))) {
      for (const m of readFileSync(new URL(f, dir), 'utf8').matchAll(/CO-\d+(?:\.\d+)?/g)) cited.add(m[0]);
    }
    expect([...cited].filter((r) => !defined.has(r))).toEqual([]);
  });
});
