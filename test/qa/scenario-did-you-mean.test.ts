// "Did you mean" when a scenario file loads (SC-5): every name a person types is compared with the
// names it could have meant: keys, steps, event types, meter ids, accounts, spaces and operators,
// each problem at its file:line:column and field.

import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/qa/scenario/load.ts';

const HEAD = `name: typos
world:
  accounts:
    - name: acme
      spaces:
        - { name: Block A, ref: block-a, meters: [{ id: MTR-A1 }] }
      meters: [{ id: MTR-B7 }]
timeline:
`;

function problems(steps: string): string[] {
  try {
    parseScenario('t.yaml', HEAD + steps);
  } catch (err) {
    return (err as { problems: string[] }).problems;
  }
  return [];
}

describe('did you mean, when a scenario loads [SC-5]', () => {
  it('SC-5: a step, a key and an event type', () => {
    expect(problems('  - advnce: 5m\n')).toEqual([
      "t.yaml:9:5: timeline[0]: unknown key 'advnce' (did you mean advance?)",
    ]);
    expect(problems('  - expect_meter: { meter: MTR-A1, realy: true }\n')).toEqual([
      "t.yaml:9:19: timeline[0].expect_meter: unknown key 'realy' (did you mean relay?)",
    ]);
    expect(problems('  - expect_event: { type: meter.cutof }\n')[0]).toMatch(
      /unknown event type 'meter\.cutof' \(did you mean meter\.cutoff\?\)$/,
    );
  });

  it('SC-5: a meter id, an account in as:, a space or account in a path', () => {
    expect(problems('  - offline: MTR-A2\n')).toEqual([
      't.yaml:9:14: timeline[0].offline: no meter "MTR-A2" in the world (did you mean MTR-A1?) (its meters: MTR-B7, MTR-A1)',
    ]);
    expect(problems('  - call: { method: GET, path: /api/v2/devices, as: amce }\n')).toEqual([
      't.yaml:9:53: timeline[0].call.as: no account "amce" in the world (did you mean acme?) (its accounts: acme; or admin, nobody)',
    ]);
    expect(problems('  - call: { method: GET, path: /api/v2/devices, as: admn }\n')[0]).toContain(
      '(did you mean admin?)',
    );
    expect(problems("  - call: { method: GET, path: '/api/v2/spaces/{space:block-b}/devices' }\n")).toEqual([
      't.yaml:9:32: timeline[0].call.path: no space "block-b" in the world (did you mean block-a?) (its spaces: block-a)',
    ]);
    expect(problems("  - call: { method: GET, path: '/sim/v1/accounts/{account:acne}' }\n")[0]).toContain(
      'no account "acne" in the world (did you mean acme?)',
    );
  });

  it('SC-5: a value that is not one of its options', () => {
    expect(problems('  - call: { method: GTE, path: /api/v2/devices }\n')).toEqual([
      't.yaml:9:21: timeline[0].call.method: Invalid option: expected one of "GET"|"PUT"|"POST"|"DELETE" (did you mean GET?)',
    ]);
  });

  it('SC-5: an operator in an expectation', () => {
    expect(problems('  - expect_meter: { meter: MTR-B7, balance: { $gtee: 0 } }\n')).toEqual([
      't.yaml:9:54: timeline[0].expect_meter.balance.$gtee: unknown operator $gtee (did you mean $gte?) (one of $eq $ne $gt $gte $lt $lte $approx $tol $matches $contains $length $exists $one_of)',
    ]);
    // Keys that are data, among others, are fields, not operators.
    expect(problems('  - expect_event: { type: meter.cutoff, data: { balance: { $lt: 0 } } }\n')).toEqual([]);
  });

  it('SC-5: a restore or clear_faults naming almost what an earlier step named', () => {
    expect(problems('  - snapshot: before-outage\n  - restore: befor-outage\n')).toEqual([
      't.yaml:10:14: timeline[1].restore: no snapshot "befor-outage" named before this step (did you mean before-outage?)',
    ]);
    expect(
      problems(
        '  - fault: { meter: MTR-A1, kind: silence, as_id: quiet }\n  - clear_faults: { meter: MTR-A1, fault: quite }\n',
      ),
    ).toEqual([
      't.yaml:10:43: timeline[1].clear_faults.fault: no fault "quite" named before this step (did you mean quiet?)',
    ]);
    // A name nothing in the file is near may be the service's own: a fault id, a snapshot file's.
    expect(problems('  - restore: from-the-file\n  - clear_faults: { meter: MTR-A1, fault: F3 }\n')).toEqual(
      [],
    );
  });
});
