// Turns the golden vectors (../golden/*.json) into a C header for run-tests.c, so the C reference is
// checked against exactly the data the TypeScript codec is. Expected fields come from each vector's frame
// through the same field table (../frames.ts) the codec uses.

import type { CommandOp } from '../../mqtt/schemas.ts';
import { type Frame, fieldsOf } from '../frames.ts';
import { loadVectors } from '../golden/vectors.ts';
import { formatValue } from '../values.ts';

const KIND: Record<string, string> = {
  int: 'ML_INT',
  num: 'ML_NUM',
  bool: 'ML_BOOL',
  str: 'ML_STR',
  enum: 'ML_ENUM',
  props: 'ML_PROPS',
};

/** A C string literal of these bytes: every byte outside [A-Za-z0-9 ] as a 3-digit octal escape. */
function cString(bytes: Buffer): string {
  let out = '"';
  for (const b of bytes) {
    const ch = String.fromCharCode(b);
    out += /[A-Za-z0-9 ]/.test(ch) ? ch : `\\${b.toString(8).padStart(3, '0')}`;
  }
  return `${out}"`;
}

function expectedFields(frame: Frame): string[] {
  const op = 'op' in frame ? (frame.op as CommandOp) : undefined;
  const out: string[] = [];
  for (const spec of fieldsOf(frame.type, op)) {
    let value: unknown = frame;
    for (const key of spec.path) value = (value as Record<string, unknown> | undefined)?.[key];
    if (value === undefined) continue;
    // Strings are compared decoded; everything else by its canonical wire text.
    const text =
      spec.type.kind === 'str'
        ? Buffer.from(value as string, 'utf8')
        : Buffer.from(formatValue(spec.type, value)!);
    out.push(`{"${spec.key}", ${KIND[spec.type.kind]}, ${cString(text)}, ${text.length}}`);
  }
  return out;
}

export function vectorsHeader(goldenDir: URL): string {
  const { valid, invalid } = loadVectors(goldenDir);
  const line = (text: string) => {
    const bytes = Buffer.from(text, 'latin1');
    return `${cString(bytes)}, ${bytes.length}`;
  };
  const validRows = valid.map((v) => {
    const fields = expectedFields(v.frame);
    return `  {${cString(Buffer.from(v.name))}, ${line(v.line)}, "${v.frame.type}", ${v.canonical ? 1 : 0}, ${fields.length}, {${fields.length ? fields.join(', ') : '{NULL, ML_INT, NULL, 0}'}}},`;
  });
  const invalidRows = invalid.map(
    (v) => `  {${cString(Buffer.from(v.name))}, ${line(v.line)}, "${v.code}"},`,
  );
  return [
    '/* Generated from the golden vectors by vectors.ts; do not edit. */',
    `static const valid_vec VALID[] = {\n${validRows.join('\n')}\n};`,
    `static const invalid_vec INVALID[] = {\n${invalidRows.join('\n')}\n};`,
    '',
  ].join('\n');
}
