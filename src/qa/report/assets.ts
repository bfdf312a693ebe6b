// uPlot's script and stylesheet, read once from node_modules, for the page to carry inline [RP-1]: a
// report opens anywhere (a CI artifact, a mail attachment) with no network and nothing beside it.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface ReportAssets {
  uplotJs: string;
  uplotCss: string;
}

let cached: ReportAssets | null = null;

export function reportAssets(): ReportAssets {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const read = (file: string) => readFileSync(require.resolve(`uplot/dist/${file}`), 'utf8');
  cached = { uplotJs: read('uPlot.iife.min.js'), uplotCss: read('uPlot.min.css') };
  return cached;
}
