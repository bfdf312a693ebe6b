// Sums up a V8 .cpuprofile (node --cpu-prof): self time by function and by file or package, the
// largest first, so a profile can be read in a terminal and quoted in a note.
//
// Run: npx tsx bench/support/cpu-profile-top.ts FILE.cpuprofile [--top 40]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '40' } },
  allowPositionals: true,
});
const TOP = Number(values.top);
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
for (const [i, id] of profile.samples.entries())
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);

/** node_modules/<pkg>, or the path under the repository, or the V8 pseudo-frame's name. */
function where(url: string): string {
  if (url === '') return '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  if (url.startsWith('node:')) return url;
  const repo = /\/(src|dist\/src|firmware-protocol|dist\/firmware-protocol)\/(.*)$/.exec(url);
  return repo ? `${repo[1]}/${repo[2]}` : url;
}

const fns = new Map<string, number>();
const files = new Map<string, number>();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const file = where(url);
  const fn = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
  fns.set(fn, (fns.get(fn) ?? 0) + us);
  files.set(file, (files.get(file) ?? 0) + us);
}
const show = (title: string, m: Map<string, number>) => {
  console.log(`${title} (self time, of ${(total / 1e6).toFixed(2)} s sampled)`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    console.log(
      `  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1e3).toFixed(0).padStart(7)} ms  ${k}`,
    );
};
show('by file or package', files);
show('by function', fns);
