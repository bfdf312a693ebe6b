import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OBIS } from '../../../firmware-protocol/dlms/cosem/obis.ts';
import { type AnswerContext, answerCommand } from './answer.ts';
import type { DlmsClient } from './client.ts';
import { type MeterModel, modelFromList } from './meter-model.ts';
import { BridgeStateFile, KEPT_TRANSACTIONS } from './state-file.ts';

const MODEL = modelFromList([
  { classId: 3, obis: OBIS.voltage },
  { classId: 3, obis: OBIS.activePower },
  { classId: 3, obis: OBIS.energyKwh },
  { classId: 112, obis: OBIS.credit },
]) as MeterModel;
const READING = { balance: 50_000, energyWh: 1_000, tariffs: [800], charging: true, stepWh: 1, atMs: 0 };

describe('a recharge answered by the DLMS bridge against its state file [CL-9.6]', () => {
  let dir: string;
  let path: string;
  let calls: number;
  let logs: string[];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'meterstack-dlms-answer-'));
    path = join(dir, 'dlms.json');
    calls = 0;
    logs = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const ctxOf = (stateFile: BridgeStateFile): AnswerContext => {
    const client = {
      call: async () => {
        calls++;
        return { kind: 'done' };
      },
    } as unknown as DlmsClient;
    return {
      model: () => MODEL,
      client: () => client,
      stateFile,
      poll: async () => ({ ok: true }),
      state: () => null,
      sample: () => null,
      credit: () => READING,
      money: (fn) => fn(),
      now: () => 1,
      say: (_level, msg) => logs.push(msg),
    };
  };
  const inDoubt = (n: number) =>
    writeFileSync(
      path,
      JSON.stringify({
        v: 1,
        cursor_ms: null,
        recharges: Array.from({ length: n }, (_, i) => ({ id: `d${i}`, status: 'in_doubt', at: i })),
      }),
    );

  it('[CL-9.6] all 1024 kept ids in doubt: a new recharge is busy, never sent, none in doubt forgotten', async () => {
    inDoubt(KEPT_TRANSACTIONS);
    const ctx = ctxOf(BridgeStateFile.load(path));
    const reply = await answerCommand(ctx, { op: 'recharge', amount: 500, transactionId: 'new' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'busy' } });
    expect(calls).toBe(0);
    const saved = JSON.parse(readFileSync(path, 'utf8')) as { recharges: { id: string }[] };
    expect(saved.recharges.map((r) => r.id)).toContain('d0');
    expect(saved.recharges).toHaveLength(KEPT_TRANSACTIONS);
  });

  it('[CL-9.6] one in doubt for good: busy, and the log says to stop the bridge before editing its file', async () => {
    inDoubt(1);
    const ctx = ctxOf(BridgeStateFile.load(path));
    const reply = await answerCommand(ctx, { op: 'recharge', amount: 500, transactionId: 'd0' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'busy' } });
    expect(calls).toBe(0);
    expect(logs.join('\n')).toMatch(/stop the bridge.*then set it "applied" or remove it/);
  });
});
