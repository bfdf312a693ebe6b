// `replay --export out.csv` (HX-6): what the service stored for the replayed meter, as the service
// itself writes it: GET /sim/v1/devices/{id}/history/span for the days it holds, then history.csv
// (HX-1) for them at 15 minutes, streamed into the file. A span longer than one request's 366 days is
// asked for in parts, the header written once.

import { type FileHandle, open } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { DAY_MS, istDate, istDayStart } from '../../time/ist.ts';
import { simCall, type Target, TargetError } from './target.ts';

/** The longest range one history.csv request covers (the v2 history's, spec-decisions 11). */
const MAX_DAYS = 366;

export interface ExportResult {
  /** IST days written, or null when the service holds nothing for the meter (the header alone). */
  from: string | null;
  to: string | null;
  rows: number;
}

/** [from, to] in parts of at most MAX_DAYS days, as YYYY-MM-DD pairs. */
export function dayParts(from: string, to: string): [string, string][] {
  const parts: [string, string][] = [];
  const end = istDayStart(to) as number;
  for (let start = istDayStart(from) as number; start <= end; start += MAX_DAYS * DAY_MS) {
    parts.push([istDate(start), istDate(Math.min(start + (MAX_DAYS - 1) * DAY_MS, end))]);
  }
  return parts;
}

/** Drops the first line of a text stream (a later part's header). */
function withoutFirstLine(): Transform {
  let dropped = false;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (dropped) return done(null, chunk);
      const nl = chunk.indexOf(0x0a);
      if (nl < 0) return done();
      dropped = true;
      done(null, chunk.subarray(nl + 1));
    },
  });
}

/** Counts lines going through. */
function lineCounter(onLine: () => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) onLine();
      done(null, chunk);
    },
  });
}

/**
 * The export file, opened (created or emptied) before the replay starts: a path that cannot be written
 * is said at once, not after an hour of replay.
 */
export async function openExportFile(file: string): Promise<FileHandle> {
  try {
    return await open(file, 'w');
  } catch (err) {
    throw new TargetError(
      `--export ${file}: cannot write it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
}

/** Writes the stored history of `deviceId` into `file` (from openExportFile), and closes it. */
export async function exportStoredHistory(
  target: Target,
  deviceId: string,
  file: FileHandle,
  interval: '15m' | '30m' | '60m' | '1d' = '15m',
): Promise<ExportResult> {
  const id = encodeURIComponent(deviceId);
  // The stream closes the file when it ends, whatever happened before.
  const out = file.createWriteStream();
  out.on('error', () => {}); // reported by the pipeline that writes to it
  let lines = 0;
  let span: { from: string | null; to: string | null };
  try {
    span = await simCall(target, 'GET', `/devices/${id}/history/span`);
    let parts: [string, string][];
    if (span.from && span.to) parts = dayParts(span.from, span.to);
    else {
      // Nothing stored: one day's request gives the header alone (the service's day, not this machine's).
      const today = (await simCall<{ now: string }>(target, 'GET', '/clock')).now.slice(0, 10);
      parts = [[today, today]];
    }
    for (const [i, [from, to]] of parts.entries()) {
      const path = `/sim/v1/devices/${id}/history.csv?from=${from}&to=${to}&interval=${interval}`;
      const res = await fetch(`${target.httpUrl}${path}`, {
        headers: { 'x-admin-token': target.adminToken },
      });
      if (!res.ok || !res.body) throw new TargetError(`GET ${path}: ${res.status} ${await res.text()}`);
      const steps = [
        Readable.fromWeb(res.body as WebReadableStream<Uint8Array>),
        ...(i > 0 ? [withoutFirstLine()] : []),
        lineCounter(() => lines++),
      ];
      await pipeline([...steps, out], { end: false });
    }
  } finally {
    await new Promise<void>((resolve) => out.end(() => resolve()));
  }
  return { from: span.from, to: span.to, rows: Math.max(0, lines - 1) };
}
