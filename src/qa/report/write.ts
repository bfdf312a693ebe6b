// Writes a report: the one place of this folder that touches the disk, besides reading uPlot (assets.ts).

import { stat, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { reportAssets } from './assets.ts';
import { reportHtml } from './html.ts';
import type { ReportData } from './model.ts';

/**
 * [RP-6] A source file as a link from the report's folder: relative, so a report and the repository it
 * came from can move together (a CI artifact unpacked beside the checkout); each segment URL-encoded,
 * so a `#` or `?` in a name stays part of it.
 */
export function sourceHref(reportFile: string, sourceFile: string): string {
  const rel = relative(dirname(resolve(reportFile)), resolve(sourceFile));
  return rel
    .split(sep)
    .map((seg) => (seg === '..' ? seg : encodeURIComponent(seg)))
    .join('/');
}

/** Builds the page and writes it; returns its size in bytes. */
export async function writeReport(file: string, data: ReportData): Promise<number> {
  const html = reportHtml(data, reportAssets());
  await writeFile(file, html);
  return Buffer.byteLength(html);
}

/** Why a report could not be written at `file` (its folder missing, or it is a folder), or null: told before a run starts. */
export async function reportPathProblem(file: string): Promise<string | null> {
  const dir = await stat(dirname(resolve(file))).catch(() => null);
  if (dir === null || !dir.isDirectory())
    return `--report ${file}: no folder ${dirname(file)} to write it in`;
  const there = await stat(file).catch(() => null);
  if (there?.isDirectory()) return `--report ${file}: is a folder; give a file name such as report.html`;
  return null;
}
