// The keys a schema allows at a path of a document (`timeline[2].expect_meter` → meter, relay, …):
// what a mistyped key is compared with for "did you mean". Reads zod's own definitions, so the
// suggestions follow the schema with nothing to keep in step.

import type { z } from 'zod';

type Def = {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  options?: readonly z.core.$ZodType[];
};

const defOf = (s: z.core.$ZodType): Def => s._zod.def as unknown as Def;

/** Through optional, default, nullable and pipes to the schema that says what the value is. */
function unwrap(s: z.core.$ZodType): z.core.$ZodType {
  for (let d = defOf(s); ; d = defOf(s)) {
    const inner = d.innerType ?? (d.type === 'pipe' ? d.in : undefined);
    if (inner === undefined) return s;
    s = inner;
  }
}

export function keysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  let s = unwrap(schema);
  for (const key of path) {
    const d = defOf(s);
    const next = d.type === 'object' ? d.shape?.[String(key)] : d.type === 'array' ? d.element : undefined;
    if (next === undefined) return [];
    s = unwrap(next);
  }
  const d = defOf(s);
  return d.type === 'object' ? Object.keys(d.shape ?? {}) : [];
}
