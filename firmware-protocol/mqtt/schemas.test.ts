// The payloads mirror the meter's domain types: these checks fail the type check (and the run) if they drift.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  COMMAND_OPS,
  type CommandOp,
  InfoSchema,
  ModeSchema,
  type ReplyData,
  type SamplePayload,
  type StatePayload,
} from './schemas.ts';
import { type MeterCommand, MODELS, MODES, type ReportedState, type Sample } from './vocabulary.ts';

describe('payloads mirror the domain', () => {
  it('[MC-7.4] a sample payload is a Sample', () => {
    expectTypeOf<SamplePayload>().toEqualTypeOf<Sample>();
  });

  it('[MC-5.2] a state payload is a ReportedState plus v', () => {
    expectTypeOf<Omit<StatePayload, 'v'>>().toEqualTypeOf<ReportedState>();
    expectTypeOf<ReplyData<'read'>['state']>().toEqualTypeOf<ReportedState>();
  });

  it('[MC-8.3] the wire ops are the domain ops', () => {
    expectTypeOf<CommandOp>().toEqualTypeOf<MeterCommand['op']>();
    expect(COMMAND_OPS).toHaveLength(9);
  });

  it('[MC-5.2] modes and [MC-4.2] models are the domain ones', () => {
    expect(ModeSchema.options).toEqual([...MODES]);
    expect(InfoSchema.safeParse({}).success).toBe(false);
    for (const model of MODELS) expect(InfoSchema.shape.model.safeParse(model).success).toBe(true);
  });
});
