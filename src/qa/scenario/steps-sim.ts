// The issue-12 steps: faults, snapshots, resets, meter replacement and prepaid policies, each one
// call of the service's /sim/v1 routes (fixtures/README.md "Scenarios"). After a restore or a reset the
// runner's names for accounts and spaces are bound again (adopt.ts), so later steps still work.

import { rebindWorld } from './adopt.ts';
import type { ScenarioContext } from './context.ts';
import { show } from './matchers.ts';
import { faultRequestBody, type Step, type WorldSpec } from './schema.ts';
import type { StepOutcome } from './steps.ts';

export interface WorldRef {
  spec: WorldSpec;
  seed: number;
}

const seg = encodeURIComponent;

/** The outcome of the step, or undefined when it is not one of these. */
export async function runSimStep(
  ctx: ScenarioContext,
  step: Step,
  world: WorldRef,
): Promise<StepOutcome | undefined> {
  if (step.fault) {
    const f = step.fault;
    const body = faultRequestBody(f);
    const params = Object.entries(body).filter(([k]) => k !== 'kind');
    const label = `fault ${f.kind} on ${f.meter}${params.length ? ` ${show(Object.fromEntries(params))}` : ''}${f.as_id ? ` as ${f.as_id}` : ''}`;
    return act(label, async () => {
      const d = (await ctx.sim('POST', `/devices/${seg(f.meter)}/faults`, body)) as { fault_id?: unknown };
      if (f.as_id !== undefined) {
        if (typeof d?.fault_id !== 'string') throw new Error(`the answer has no fault_id: ${show(d)}`);
        ctx.faultIds.set(f.as_id, d.fault_id);
      }
    });
  }
  if (step.clear_faults) {
    const c = step.clear_faults;
    if (c.fault === undefined)
      return act(`clear every fault of ${c.meter}`, () =>
        ctx.sim('DELETE', `/devices/${seg(c.meter)}/faults`),
      );
    const id = ctx.faultIds.get(c.fault) ?? c.fault;
    return act(`clear fault ${c.fault}${id !== c.fault ? ` (${id})` : ''} of ${c.meter}`, () =>
      ctx.sim('DELETE', `/devices/${seg(c.meter)}/faults/${seg(id)}`),
    );
  }
  if (step.snapshot !== undefined) {
    const name = step.snapshot;
    return act(`snapshot the world as ${JSON.stringify(name)}`, () =>
      ctx.sim('POST', '/snapshots', { name }),
    );
  }
  if (step.restore !== undefined) {
    const name = step.restore;
    return act(`restore the world from ${JSON.stringify(name)}`, async () => {
      await ctx.sim('POST', `/snapshots/${seg(name)}/restore`);
      await rebindWorld(ctx, world.spec, world.seed);
    });
  }
  if (step.reset_world) {
    return act('reset the world', async () => {
      await ctx.sim('POST', '/reset');
      ctx.faultIds.clear();
      await rebindWorld(ctx, world.spec, world.seed);
    });
  }
  if (step.reset_meter !== undefined) {
    const m = step.reset_meter;
    return act(`reset meter ${m}`, () => ctx.sim('POST', `/devices/${seg(m)}/reset`));
  }
  if (step.replace) {
    const { meter, ...body } = step.replace;
    return act(`replace meter ${meter}${body.serial ? ` with serial ${body.serial}` : ''}`, () =>
      ctx.sim('POST', `/devices/${seg(meter)}/replace`, body),
    );
  }
  if (step.prepaid_policy) {
    const { meter, ...body } = step.prepaid_policy;
    return act(`prepaid policy of ${meter}: ${show(body)}`, () =>
      ctx.sim('PUT', `/devices/${seg(meter)}/prepaid-policy`, body),
    );
  }
  return undefined;
}

async function act(label: string, run: () => Promise<unknown>): Promise<StepOutcome> {
  try {
    await run();
    return { label, checks: [] };
  } catch (err) {
    return { label, checks: [{ what: 'carried out', failure: (err as Error).message }] };
  }
}
