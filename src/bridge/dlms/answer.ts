// [CL-9.5, CL-9.6] A contract command answered through the meter: the plan (commands.ts), the call, the
// reply; a recharge guarded by the transaction ids the bridge keeps on disk, so it never credits twice,
// and one whose answer was lost decided from the meter's credit (in-doubt.ts), so it is never lost either.

import type { WireReply } from '../../../firmware-protocol/mqtt/codec.ts';
import type { MeterCommand, ReportedState, Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import type { DlmsClient } from './client.ts';
import { planCommand } from './commands.ts';
import { type CreditReading, judgeRecharge } from './in-doubt.ts';
import type { MeterModel } from './meter-model.ts';
import { type BridgeStateFile, KEPT_TRANSACTIONS } from './state-file.ts';

export interface AnswerContext {
  model: () => MeterModel | null;
  client: () => DlmsClient | null;
  stateFile: BridgeStateFile;
  /** A live poll; afterwards state(), sample() and credit() are the meter's now. */
  poll: () => Promise<{ ok: true } | { ok: false; message: string }>;
  state: () => ReportedState | null;
  sample: () => Sample | null;
  /** [CL-9.6] The newest poll's credit figures, or null when it gave no credit. */
  credit: () => CreditReading | null;
  /** [CL-9.6] Runs `fn` alone among the bridge's money work: one recharge or settling at a time. */
  money: <T>(fn: () => Promise<T>) => Promise<T>;
  now: () => number;
  say: (level: 'info' | 'warn' | 'error', msg: string) => void;
}

const busy = (message: string): WireReply => ({ ok: false, error: { code: 'busy', message } });

export async function answerCommand(ctx: AnswerContext, command: MeterCommand): Promise<WireReply> {
  const m = ctx.model();
  if (!m) return busy('the meter has not answered the bridge yet');
  const plan = planCommand(command, m);
  if (plan.kind === 'reply') return plan.reply;
  if (plan.kind === 'read') return read(ctx);
  const client = ctx.client();
  if (!client) return busy('no association with the meter');
  if (plan.kind === 'recharge' && command.op === 'recharge')
    return ctx.money(() => recharge(ctx, plan.transactionId, command.amount, plan.call));
  const out = await client.call(plan.call);
  if (out.kind === 'failed') return failed(out);
  await ctx.poll(); // [MC-5.1] the state the command changed goes out at once
  return { ok: true };
}

type Failure = Extract<Awaited<ReturnType<DlmsClient['call']>>, { kind: 'failed' }>;

function failed(out: Failure): WireReply {
  if (out.reason === 'refused')
    return { ok: false, error: { code: 'invalid_argument', message: `the meter refused: ${out.message}` } };
  if (out.reason === 'exception')
    return { ok: false, error: { code: 'unsupported', message: `the meter cannot: ${out.message}` } };
  return busy(`no answer from the meter: ${out.message}`);
}

/** Ids whose undecidable doubt was logged as an error by this process: once each, not at every retry. */
const told = new WeakMap<BridgeStateFile, Set<string>>();

/**
 * [CL-9.6, MC-8.8, MC-8.12] A recharge: the meter read just before (which also settles earlier doubts),
 * the id on disk in doubt with that reading, the ACTION, and the outcome kept. Runs under `money`.
 */
async function recharge(
  ctx: AnswerContext,
  txn: string,
  amount: number,
  call: Parameters<DlmsClient['call']>[0],
): Promise<WireReply> {
  const polled = await ctx.poll();
  const before = ctx.credit();
  if (!polled.ok || !before)
    return busy(`the meter did not answer: ${polled.ok ? 'no credit' : polled.message}`);
  settle(ctx, before);
  const status = ctx.stateFile.recharge(txn);
  if (status === 'applied') {
    // [MC-8.8] Applied before, under any command id: never credited twice.
    return { ok: true, data: { applied: false, balance: ctx.state()?.balance ?? before.balance } };
  }
  if (status === 'in_doubt') {
    // Its credit could not tell: neither sent again nor taken as paid; `busy` keeps it pending at the
    // service (MC-8.12) until a person checks the meter and marks it in the state file.
    const seen = told.get(ctx.stateFile) ?? new Set<string>();
    told.set(ctx.stateFile, seen);
    if (!seen.has(txn)) {
      seen.add(txn);
      ctx.say(
        'error',
        `recharge ${txn} in doubt and its credit cannot tell: check the meter, stop the bridge (it keeps the file in memory and overwrites edits), then set it "applied" or remove it in ${ctx.stateFile.path} and start it again [CL-9.6]`,
      );
    }
    return busy(`recharge ${txn} is in doubt: a person must check the meter's credit [CL-9.6]`);
  }
  // [CL-9.6] Every kept id in doubt: a new one would push one of them out and it could credit twice.
  if (ctx.stateFile.full())
    return busy(`${KEPT_TRANSACTIONS} recharges in doubt: a person must check them first [CL-9.6]`);
  const client = ctx.client();
  if (!client) return busy('no association with the meter');
  ctx.stateFile.setRecharge(txn, 'in_doubt', ctx.now(), { ...before, amount }); // on disk before the ACTION
  const out = await client.call(call);
  if (out.kind === 'failed') {
    // Known not applied: the meter said no, or the request never left. Otherwise the check decides later.
    const sure = ['refused', 'exception', 'not_associated', 'busy'].includes(out.reason);
    if (sure) ctx.stateFile.forgetRecharge(txn);
    else
      ctx.say('warn', `recharge ${txn}: ${out.message}; in doubt until the meter's credit is read [CL-9.6]`);
    return failed(out);
  }
  ctx.stateFile.setRecharge(txn, 'applied', ctx.now());
  const polled2 = await ctx.poll(); // [MC-5.1] the state the command changed goes out at once
  // [MC-8.11] The balance right after the credit: read back, or the one before plus the amount.
  const balance = polled2.ok ? (ctx.state()?.balance ?? 0) : before.balance + amount;
  return { ok: true, data: { applied: true, balance } };
}

/**
 * [CL-9.6] Decides every recharge in doubt from a reading taken after it: applied, or forgotten (the
 * service sends it again, MC-8.10), or past deciding (its check dropped: any later reading would also
 * hold later credits). Call under `money`, with a reading no recharge has gone out since.
 */
function settle(ctx: AnswerContext, after: CreditReading): void {
  for (const { id, check } of ctx.stateFile.checks()) {
    const v = judgeRecharge(check, after);
    if (v.kind === 'applied') {
      ctx.stateFile.setRecharge(id, 'applied', ctx.now());
      ctx.say('info', `recharge ${id} was in doubt: applied (${v.why}) [CL-9.6]`);
    } else if (v.kind === 'not_applied') {
      ctx.stateFile.forgetRecharge(id);
      ctx.say('warn', `recharge ${id} was in doubt: not applied (${v.why}); it may be sent again [CL-9.6]`);
    } else {
      ctx.stateFile.dropCheck(id);
      ctx.say('error', `recharge ${id} stays in doubt: ${v.why}; check the meter's credit [CL-9.6]`);
    }
  }
}

/** [CL-9.6] After an association: a fresh reading settles what a lost answer left in doubt. */
export async function settleInDoubt(ctx: AnswerContext): Promise<void> {
  if (ctx.stateFile.checks().length === 0) return;
  await ctx.money(async () => {
    if (ctx.stateFile.checks().length === 0) return;
    const polled = await ctx.poll();
    const reading = ctx.credit();
    if (polled.ok && reading) settle(ctx, reading);
  });
}

/** [MC-8.6] A live poll: the readings and the state. */
async function read(ctx: AnswerContext): Promise<WireReply> {
  const r = await ctx.poll();
  const state = ctx.state();
  if (!r.ok || !state) return busy(`the meter did not answer: ${r.ok ? 'no state' : r.message}`);
  return { ok: true, data: { readings: ctx.sample(), state } };
}
