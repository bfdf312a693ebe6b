// A fault edge the meter reports at once: a state report at that instant ([M-10] reports a change).

import { reportedState } from '../create.ts';
import type { MeterEffect, MeterState } from '../types.ts';
import type { Fault } from './types.ts';

export function reportedStateEffect(s: MeterState, _fault: Fault, t: number, effects: MeterEffect[]): void {
  effects.push({ type: 'state', state: reportedState(s, t) });
}
