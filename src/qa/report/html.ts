// The report page, built from ReportData alone (no I/O, no clock): the same data gives the same
// bytes. Every word is in the HTML itself, so a failed expectation reads even where scripts do not
// run; the script only draws the charts from the data inlined beside it [RP-1] [RP-2].

import type { ReportAssets } from './assets.ts';
import { esc, inlined, scriptJson } from './escape.ts';
import { istTime, span } from './format.ts';
import type { CheckMark, Mark, MarkKind, ReportData, RunData } from './model.ts';
import { PAGE_SCRIPT } from './page-script.ts';
import { PAGE_STYLE } from './page-style.ts';

export const MARK_NAMES: Record<MarkKind, string> = {
  cutoff: 'cut-off',
  restore: 'restore',
  recharge: 'recharge',
  fault: 'fault',
  offline: 'offline',
  online: 'online',
  relay: 'relay',
  mode: 'mode',
};

/** The dashed line of each kind of event, on the charts and in their key. */
export const MARK_COLORS: Record<MarkKind, string> = {
  cutoff: '#cf222e',
  restore: '#1a7f37',
  recharge: '#0969da',
  fault: '#bc4c00',
  offline: '#6e7781',
  online: '#1b7c83',
  relay: '#8250df',
  mode: '#8250df',
};

export function reportHtml(data: ReportData, assets: ReportAssets): string {
  const checks = data.runs.flatMap((r) => r.checks);
  const failed = data.runs.reduce((n, r) => n + failedIn(r), 0);
  const title = `${data.kind === 'scenario' ? 'Scenarios' : 'Replay'}: ${data.title}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`${failed > 0 ? '✗' : '✓'} ${title}`)}</title>
<style>${inlined(assets.uplotCss, 'style')}</style>
<style>${inlined(PAGE_STYLE, 'style')}</style>
</head>
<body>
<header class="top ${failed > 0 ? 'fail' : 'pass'}">
<h1>${esc(title)}</h1>
${summary(data, checks)}
${failed > 0 ? '<p class="filter"><label><input type="checkbox" id="only-failed"> only what failed</label></p>' : ''}
</header>
${data.runs.length > 1 ? contents(data.runs) : ''}
<main>
${data.runs.map((r, i) => run(r, i)).join('\n')}
</main>
<footer>meterstack report · times in IST (UTC+05:30), virtual · written ${esc(istTime(data.writtenAt))}</footer>
<script type="application/json" id="report-data">${scriptJson(chartData(data))}</script>
<script>${inlined(assets.uplotJs, 'script')}</script>
<script>${inlined(PAGE_SCRIPT, 'script')}</script>
</body>
</html>
`;
}

/** [RP-5] The run's summary: how many runs and expectations, how long, which seeds. */
function summary(data: ReportData, checks: CheckMark[]): string {
  const seeds = [...new Set(data.runs.map((r) => r.seed).filter((s) => s !== null))];
  const vt = data.runs.reduce((n, r) => n + (r.vtEnd - r.vtStart), 0);
  const failed = checks.filter((c) => !c.ok).length;
  const unbuilt = data.runs.filter((r) => r.setupError).length;
  const items = [
    data.kind === 'scenario'
      ? `<b>${data.runs.length}</b> scenario${data.runs.length === 1 ? '' : 's'}`
      : null,
    data.kind === 'replay' && checks.length === 0
      ? null
      : `<b>${checks.length}</b> expectation${checks.length === 1 ? '' : 's'}: <b class="ok">${checks.length - failed} passed</b>, <b class="${failed > 0 ? 'bad' : ''}">${failed} failed</b>`,
    unbuilt > 0 ? `<b class="bad">${unbuilt} world${unbuilt === 1 ? '' : 's'} not built</b>` : null,
    `took ${esc(span(data.wallMs))} (wall), covered ${esc(span(vt))} of virtual time`,
    seeds.length > 0 ? `seed${seeds.length === 1 ? '' : 's'} ${esc(seedList(seeds as number[]))}` : null,
  ];
  return `<p class="summary">${items.filter((x) => x !== null).join(' · ')}</p>`;
}

/** `1–5, 9` rather than nineteen numbers. */
function seedList(seeds: number[]): string {
  const s = [...seeds].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < s.length; ) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++;
    out.push(j - i >= 2 ? `${s[i]}–${s[j]}` : s.slice(i, j + 1).join(', '));
    i = j + 1;
  }
  return out.join(', ');
}

function failedIn(r: RunData): number {
  return r.checks.filter((c) => !c.ok).length + (r.setupError ? 1 : 0);
}

function contents(runs: RunData[]): string {
  const items = runs.map((r, i) => {
    const bad = failedIn(r);
    return `<li class="${bad ? 'fail' : 'pass'}"><span class="badge">${bad ? `✗ ${bad}` : '✓'}</span> <a href="#run-${i + 1}">${esc(r.name)}</a></li>`;
  });
  return `<nav aria-label="runs"><ol>${items.join('')}</ol></nav>`;
}

/** The run's file, or one line of it (shown by its base name, the whole path in the title) [RP-6]. */
function fileLink(r: RunData, line: number): string {
  const name = line > 0 ? (r.file.split(/[/\\]/).pop() ?? r.file) : r.file;
  const text = esc(`${name}${line > 0 ? `:${line}` : ''}`);
  const title = esc(`${r.file}${line > 0 ? `:${line}` : ''}`);
  if (r.href === null) return `<code title="${title}">${text}</code>`;
  return `<a class="src" title="${title}" href="${esc(`${r.href}${line > 0 ? `#L${line}` : ''}`)}"><code>${text}</code></a>`;
}

function run(r: RunData, i: number): string {
  const bad = failedIn(r);
  const meta = [
    fileLink(r, 0),
    r.seed === null ? null : `seed ${r.seed}`,
    `${esc(istTime(r.vtStart))} → ${esc(istTime(r.vtEnd))} (${esc(span(r.vtEnd - r.vtStart))})`,
    `took ${esc(span(r.wallMs))}`,
    ...r.notes.map(esc),
  ];
  return `<section class="run ${bad ? 'fail' : 'pass'}" id="run-${i + 1}">
<h2><span class="badge">${bad ? `✗ ${bad} failed` : r.checks.length > 0 ? '✓ passed' : '✓'}</span> ${esc(r.name)}</h2>
<p class="meta">${meta.filter((x) => x !== null).join(' · ')}</p>
${r.setupError ? `<p class="setup bad">the world could not be built: ${esc(r.setupError)}</p>` : ''}
${r.thinned ? '<p class="note">Long run: samples thinned to fit the page (each kept sample is the one of its neighbours drawing most power); every relay change and event is shown.</p>' : ''}
${markKey(r)}
${r.meters.map((m, k) => `<figure class="meter" data-run="${i}" data-meter="${k}"><figcaption>${esc(m.id)}</figcaption><div class="chart power"></div><div class="chart balance"></div></figure>`).join('\n')}
${r.meters.length === 0 ? '<p class="note">No meter reported telemetry in this run.</p>' : ''}
${checksTable(r, i)}
${marksList(r.marks)}
</section>`;
}

/** What the dashed lines and dots on this run's charts mean: only the kinds it has. */
function markKey(r: RunData): string {
  if (r.meters.length === 0) return '';
  const kinds = [...new Set(r.marks.map((m) => m.kind))];
  const items = kinds.map((k) => `<span><i style="color:${MARK_COLORS[k]}"></i>${MARK_NAMES[k]}</span>`);
  if (r.checks.length > 0)
    items.push('<span><b class="ok">●</b> held <b class="bad">●</b> failed (click: its row)</span>');
  return items.length > 0 ? `<div class="key">${items.join('')}</div>` : '';
}

function checksTable(r: RunData, runIndex: number): string {
  if (r.checks.length === 0) return '';
  const rows = r.checks.map((c, k) => checkRow(r, c, `check-${runIndex + 1}-${k + 1}`));
  return `<table class="checks"><caption>Expectations</caption>
<thead><tr><th>virtual time</th><th>result</th><th>step</th><th>expectation</th><th>where</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

function checkRow(r: RunData, c: CheckMark, id: string): string {
  const detail = c.ok
    ? ''
    : `<div class="failure">${esc(c.failure ?? 'failed')}</div>${c.seen !== null ? `<details open><summary>seen</summary><pre>${esc(c.seen)}</pre></details>` : ''}`;
  return `<tr id="${id}" class="${c.ok ? 'pass' : 'fail'}"><td class="t">${esc(istTime(c.t).slice(11))} <small>+${esc(span(c.t - r.vtStart))}</small></td><td class="r">${c.ok ? '<span class="ok">✓ passed</span>' : '<span class="bad">✗ FAILED</span>'}</td><td class="s">${c.step}. ${esc(c.label)}</td><td class="w">${esc(c.what)}${detail}</td><td class="f">${fileLink(r, c.line)}</td></tr>`;
}

function marksList(marks: Mark[]): string {
  if (marks.length === 0) return '';
  const items = marks.map(
    (m) =>
      `<li class="mk-${m.kind}"><span class="t">${esc(istTime(m.t).slice(11))}</span> <b>${MARK_NAMES[m.kind]}</b>${m.meter ? ` ${esc(m.meter)}` : ''}: ${esc(m.text)}</li>`,
  );
  return `<details class="marks"><summary>Events (${marks.length})</summary><ul>${items.join('')}</ul></details>`;
}

/**
 * What the script draws, compact: times as ms after the run's start (samples' as steps), values at their
 * meter's places [RP-4], marks and checks by index into the tables above.
 */
function chartData(data: ReportData) {
  return {
    colors: MARK_COLORS,
    runs: data.runs.map((r, i) => ({
      t0: r.vtStart,
      t1: r.vtEnd,
      meters: r.meters.map((m) => ({
        id: m.id,
        places: m.places,
        // Seconds since the sample before (the run's start for the first): a third of the bytes of times.
        dt: m.t.map((t, k) => (t - (k > 0 ? m.t[k - 1]! : r.vtStart)) / 1000),
        p: m.power,
        e: m.energy,
        b: m.balance,
        relay: m.relay.map(([t, on]) => [t - r.vtStart, on ? 1 : 0]),
      })),
      marks: r.marks.map((m) => ({ t: m.t - r.vtStart, k: m.kind, m: m.meter, x: MARK_NAMES[m.kind] })),
      checks: r.checks.map((c, k) => ({
        t: c.t - r.vtStart,
        ok: c.ok,
        m: c.meters,
        id: `check-${i + 1}-${k + 1}`,
      })),
    })),
  };
}
