// Load-time check that every step names only meters the scenario's world has: a typo in a meter id is
// caught with its file and line before anything runs, not as a puzzling 404 halfway through.

import type { Scenario, Step } from './schema.ts';

export interface BadReference {
  /** Where, as a path into the scenario (for its line). */
  path: (string | number)[];
  message: string;
}

/** The step's fields that name a meter, with the path of each. */
function meterFields(step: Step): [string[], string][] {
  const out: [string[], string][] = [];
  const add = (path: string[], id: string | undefined) => id !== undefined && out.push([path, id]);
  add(['set_load', 'meter'], step.set_load?.meter);
  add(['recharge', 'meter'], step.recharge?.meter);
  add(['offline'], step.offline);
  add(['online'], step.online);
  add(['button', 'meter'], step.button?.meter);
  add(['history', 'meter'], step.history?.meter);
  add(['expect_meter', 'meter'], step.expect_meter?.meter);
  add(['expect_event', 'meter'], step.expect_event?.meter);
  add(['fault', 'meter'], step.fault?.meter);
  add(['clear_faults', 'meter'], step.clear_faults?.meter);
  add(['reset_meter'], step.reset_meter);
  add(['replace', 'meter'], step.replace?.meter);
  add(['prepaid_policy', 'meter'], step.prepaid_policy?.meter);
  // A call to a device's route, unless it expects an error (asking for a meter that is not there is a test).
  const c = step.call;
  const failing = step.expect?.status !== undefined && step.expect.status >= 400;
  if (c && !failing) add(['call', 'path'], /^\/(?:api\/v2|sim\/v1)\/devices\/([^/?{}]+)/.exec(c.path)?.[1]);
  // A literal device level in an MQTT topic filter [MC-1].
  const level = step.expect_mqtt?.topic.split('/')[2];
  if (level !== undefined && level !== '+' && level !== '#') add(['expect_mqtt', 'topic'], level);
  return out;
}

function decoded(id: string): string {
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}

export function badMeterReferences(s: Scenario): BadReference[] {
  const meters = new Set<string>();
  for (const a of s.world.accounts) {
    for (const m of a.meters) meters.add(m.id);
    for (const sp of a.spaces) for (const m of sp.meters) meters.add(m.id);
  }
  const known = [...meters].join(', ') || 'none';
  const out: BadReference[] = [];
  s.timeline.forEach((step, i) => {
    for (const [path, id] of meterFields(step))
      if (!meters.has(decoded(id)))
        out.push({
          path: ['timeline', i, ...path],
          message: `no meter ${JSON.stringify(id)} in the world (its meters: ${known})`,
        });
  });
  return out;
}

/** The meters a step names (the HTML report draws its checks on their charts). */
export function stepMeters(step: Step): string[] {
  return [...new Set(meterFields(step).map(([, id]) => decoded(id)))];
}
