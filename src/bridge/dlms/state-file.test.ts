import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CreditCheck } from './in-doubt.ts';
import { BridgeStateFile, KEPT_TRANSACTIONS } from './state-file.ts';

const CHECK: CreditCheck = {
  amount: 700,
  balance: 50_000,
  energyWh: 1_234_567,
  tariffs: [800],
  charging: true,
};

describe('the DLMS bridge state file: recharges in doubt with their check [CL-9.6]', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'meterstack-dlms-state-'));
    path = join(dir, 'dlms.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('an in-doubt recharge keeps its check across a restart; applied or dropped, the check goes', () => {
    const f = BridgeStateFile.load(path);
    f.setRecharge('a', 'in_doubt', 1, CHECK);
    f.setRecharge('b', 'in_doubt', 2, { ...CHECK, amount: 5 });
    const again = BridgeStateFile.load(path);
    expect(again.checks()).toEqual([
      { id: 'a', check: CHECK },
      { id: 'b', check: { ...CHECK, amount: 5 } },
    ]);
    again.setRecharge('a', 'applied', 3);
    again.dropCheck('b');
    const third = BridgeStateFile.load(path);
    expect(third.checks()).toEqual([]);
    expect([third.recharge('a'), third.recharge('b')]).toEqual(['applied', 'in_doubt']);
  });

  it('a file of the version before checks (in_doubt without one) still loads', () => {
    writeFileSync(
      path,
      JSON.stringify({ v: 1, cursor_ms: null, recharges: [{ id: 'x', status: 'in_doubt', at: 1 }] }),
    );
    const f = BridgeStateFile.load(path);
    expect(f.recharge('x')).toBe('in_doubt');
    expect(f.checks()).toEqual([]);
  });

  it('a check of the wrong shape makes the file unreadable: the bridge does not start [CL-9.6]', () => {
    const bad = {
      v: 1,
      cursor_ms: null,
      recharges: [{ id: 'x', status: 'in_doubt', at: 1, check: { amount: '7' } }],
    };
    writeFileSync(path, JSON.stringify(bad));
    expect(() => BridgeStateFile.load(path)).toThrow(/not a DLMS bridge state file/);
  });

  it('past the limit the oldest applied ids go, never one in doubt', () => {
    // A full file written as a bridge would have left it (one save each would take seconds of fsync).
    const applied = Array.from({ length: KEPT_TRANSACTIONS - 1 }, (_, i) => ({
      id: `t${i}`,
      status: 'applied',
      at: i,
    }));
    const recharges = [{ id: 'doubt', status: 'in_doubt', at: 0, check: CHECK }, ...applied];
    writeFileSync(path, JSON.stringify({ v: 1, cursor_ms: null, recharges }));
    const f = BridgeStateFile.load(path);
    f.setRecharge('new', 'applied', 1e6);
    const saved = JSON.parse(readFileSync(path, 'utf8')) as { recharges: { id: string }[] };
    expect(saved.recharges).toHaveLength(KEPT_TRANSACTIONS);
    expect(saved.recharges[0]?.id).toBe('doubt');
    expect(f.recharge('t0')).toBeUndefined();
    expect(f.recharge('t1')).toBe('applied');
    expect(f.recharge('new')).toBe('applied');
  });

  it('[CL-9.6] all kept ids in doubt: full, and a new one is refused rather than one in doubt pushed out', () => {
    const recharges = Array.from({ length: KEPT_TRANSACTIONS }, (_, i) => ({
      id: `d${i}`,
      status: 'in_doubt',
      at: i,
      check: CHECK,
    }));
    writeFileSync(path, JSON.stringify({ v: 1, cursor_ms: null, recharges }));
    const f = BridgeStateFile.load(path);
    expect(f.full()).toBe(true);
    expect(() => f.setRecharge('new', 'in_doubt', 1e6, CHECK)).toThrow(/in doubt, no room/);
    expect(f.recharge('d0')).toBe('in_doubt');
    expect(BridgeStateFile.load(path).recharge('d0')).toBe('in_doubt');
    // one of them decided: room again (the applied one goes first)
    f.setRecharge('d5', 'applied', 1e6);
    expect(f.full()).toBe(false);
  });

  it('[CL-9.6.1] a check with the step and the times reads back; a bad step makes the file unreadable', () => {
    const f = BridgeStateFile.load(path);
    const timed = { ...CHECK, stepWh: 1_000, atMs: 5, meterMs: null };
    f.setRecharge('a', 'in_doubt', 1, timed);
    expect(BridgeStateFile.load(path).checks()).toEqual([{ id: 'a', check: timed }]);
    const bad = {
      v: 1,
      cursor_ms: null,
      recharges: [{ id: 'x', status: 'in_doubt', at: 1, check: { ...CHECK, stepWh: 0 } }],
    };
    writeFileSync(path, JSON.stringify(bad));
    expect(() => BridgeStateFile.load(path)).toThrow(/not a DLMS bridge state file/);
  });
});
