// [CL-9.5, CL-9.6] A contract command answered through the meter: the plan (commands.ts), the call, the
// reply; a recharge guarded by the transaction ids the bridge keeps on disk, so it never credits twice.

import type { WireReply } from '../../../firmware-protocol/mqtt/codec.ts';
import type { MeterCommand, ReportedState, Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import type { DlmsClient } from './client.ts';
import { planCommand } from './commands.ts';
import type { MeterModel } from './meter-model.ts';
import type { BridgeStateFile } from './state-file.ts';

export interface AnswerContext {
  model: () => MeterModel | null;
  client: () => DlmsClient | null;
  stateFile: BridgeStateFile;
  /** A live poll; afterwards state() and sample() are the meter's now. */
  poll: () => Promise<{ ok: true } | { ok: false; message: string }>;
  state: () => ReportedState | null;
  sample: () => Sample | null;
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
  const txn = plan.kind === 'recharge' ? plan.transactionId : null;
  if (txn !== null) {
    const status = ctx.stateFile.recharge(txn);
    if (status !== undefined) {
      // [MC-8.8, CL-9.6] Applied (or in doubt) before, under any command id: never credited twice.
      if (status === 'in_doubt')
        ctx.say('error', `recharge ${txn} in doubt: taken as applied; check the meter's credit [CL-9.6]`);
      const now = await read(ctx);
      return now.ok ? { ok: true, data: { applied: false, balance: ctx.state()?.balance ?? 0 } } : now;
    }
    ctx.stateFile.setRecharge(txn, 'in_doubt', ctx.now()); // on disk before the ACTION goes out
  }
  const before = ctx.state()?.balance ?? 0;
  const out = await client.call(plan.call);
  if (out.kind === 'failed') {
    // Known not applied: the meter said no, or the request never left.
    const sure =
      out.reason === 'refused' ||
      out.reason === 'exception' ||
      out.reason === 'not_associated' ||
      out.reason === 'busy';
    if (txn !== null && sure) ctx.stateFile.forgetRecharge(txn);
    if (out.reason === 'refused')
      return { ok: false, error: { code: 'invalid_argument', message: `the meter refused: ${out.message}` } };
    if (out.reason === 'exception')
      return { ok: false, error: { code: 'unsupported', message: `the meter cannot: ${out.message}` } };
    return busy(`no answer from the meter: ${out.message}`);
  }
  if (txn !== null) ctx.stateFile.setRecharge(txn, 'applied', ctx.now());
  const polled = await ctx.poll(); // [MC-5.1] the state the command changed goes out at once
  if (command.op !== 'recharge') return { ok: true };
  // [MC-8.11] The balance right after the credit: read back, or the one before plus the amount.
  const balance = polled.ok ? (ctx.state()?.balance ?? 0) : before + command.amount;
  return { ok: true, data: { applied: true, balance } };
}

/** [MC-8.6] A live poll: the readings and the state. */
async function read(ctx: AnswerContext): Promise<WireReply> {
  const r = await ctx.poll();
  const state = ctx.state();
  if (!r.ok || !state) return busy(`the meter did not answer: ${r.ok ? 'no state' : r.message}`);
  return { ok: true, data: { readings: ctx.sample(), state } };
}
