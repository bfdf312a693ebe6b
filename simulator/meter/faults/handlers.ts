// What the pure meter does at each fault kind's edges: one table per family's file, merged here.
// Kinds with no entry (the link's, the clock's, voltage, telemetry_gap) act only through what they
// change while active (see README [M-18]..[M-23]), not at an instant.

import { hardwareHandlers } from './hardware.ts';
import { powerHandlers } from './power.ts';
import { registerFaultHandlers } from './register.ts';
import type { FaultHandler, FaultKind } from './types.ts';

export const FAULT_HANDLERS: Readonly<Partial<Record<FaultKind, FaultHandler>>> = {
  ...powerHandlers,
  ...hardwareHandlers,
  ...registerFaultHandlers,
};
