// Reads a trace file of any supported format, picked by its extension and first line.

import { readFile } from 'node:fs/promises';
import { readCsvTrace } from './csv.ts';
import { readJsonlTrace } from './jsonl.ts';
import { type Trace, TraceError } from './types.ts';
import { isUciHeader, readUciTrace } from './uci.ts';

export function parseTrace(file: string, text: string): Trace {
  const firstLine = text.slice(0, text.indexOf('\n') >>> 0);
  if (/\.(jsonl|ndjson)$/i.test(file) || firstLine.trimStart().startsWith('{'))
    return readJsonlTrace(file, text);
  if (isUciHeader(firstLine)) return readUciTrace(file, text);
  if (/\.csv$/i.test(file) || firstLine.includes(',') || firstLine.startsWith('#'))
    return readCsvTrace(file, text);
  throw new TraceError(file, null, null, 'not a trace: expected CSV (.csv) or JSON Lines (.jsonl)');
}

export async function loadTrace(file: string): Promise<Trace> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new TraceError(
      file,
      null,
      null,
      (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message,
    );
  }
  return parseTrace(file, text);
}
