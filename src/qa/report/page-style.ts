// The report page's stylesheet: readable at a desk (1280 px) and on a phone (390 px), where the
// expectations table becomes one card per row. Light and dark follow the reader's system.

export const PAGE_STYLE = `
:root { --fg: #1b1f24; --muted: #57606a; --bg: #fff; --panel: #f6f8fa; --line: #d0d7de;
  --ok: #1a7f37; --bad: #cf222e; --bad-bg: #ffebe9; --link: #0550ae; color-scheme: light dark; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9da7b3; --bg: #0d1117; --panel: #161b22; --line: #30363d;
    --ok: #3fb950; --bad: #ff7b72; --bad-bg: #3d1418; --link: #79c0ff; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--fg); background: var(--bg); }
header.top, main, nav, footer { max-width: 1240px; margin: 0 auto; padding: 0 16px; }
header.top { padding-top: 16px; border-bottom: 1px solid var(--line); }
header.top.fail h1::before { content: "✗ "; color: var(--bad); }
header.top.pass h1::before { content: "✓ "; color: var(--ok); }
h1 { font-size: 20px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 17px; margin: 0 0 4px; overflow-wrap: anywhere; }
.summary { margin: 0 0 12px; color: var(--muted); }
.filter { margin: -6px 0 10px; font-size: 13px; }
.only-failed section.run.pass, .only-failed nav li.pass, .only-failed table.checks tr.pass { display: none; }
.summary b { color: var(--fg); }
.ok { color: var(--ok); } .bad { color: var(--bad); }
b.ok { color: var(--ok); } b.bad { color: var(--bad); }
a { color: var(--link); }
nav ol { list-style: none; padding: 8px 0; margin: 0; columns: 3 260px; }
nav li { break-inside: avoid; padding: 1px 0; overflow-wrap: anywhere; }
nav li.fail a { color: var(--bad); font-weight: 600; }
.badge { display: inline-block; min-width: 2em; font-weight: 600; }
.pass > h2 .badge, li.pass .badge { color: var(--ok); }
.fail > h2 .badge, li.fail .badge { color: var(--bad); }
section.run { border-top: 1px solid var(--line); padding: 16px 0; }
.meta { color: var(--muted); margin: 0 0 8px; overflow-wrap: anywhere; }
.note { color: var(--muted); font-size: 13px; }
.setup { background: var(--bad-bg); padding: 8px; border-radius: 6px; }
figure.meter { margin: 8px 0 16px; padding: 8px; background: var(--panel); border-radius: 6px; }
figure.meter figcaption { font-weight: 600; overflow-wrap: anywhere; }
.chart { width: 100%; min-height: 40px; }
.uplot { font-family: inherit; }
.u-legend { font-size: 12px; }
table.checks { width: 100%; border-collapse: collapse; margin: 8px 0; }
table.checks caption { text-align: left; font-weight: 600; padding: 4px 0; }
table.checks th, table.checks td { text-align: left; vertical-align: top; padding: 4px 6px;
  border-bottom: 1px solid var(--line); }
table.checks th { font-weight: 600; color: var(--muted); font-size: 12px; }
table.checks td.t { white-space: nowrap; font-variant-numeric: tabular-nums; }
table.checks td.t small { color: var(--muted); }
table.checks td.w, table.checks td.s { overflow-wrap: anywhere; }
table.checks tr.fail { background: var(--bad-bg); }
table.checks tr:target { outline: 2px solid var(--link); }
.failure { color: var(--bad); font-weight: 600; margin-top: 2px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; font-size: 12px; max-height: 16em;
  overflow: auto; }
details.marks ul { list-style: none; padding: 0; margin: 4px 0; columns: 2 320px; font-size: 13px; }
details.marks .t { font-variant-numeric: tabular-nums; color: var(--muted); }
footer { color: var(--muted); font-size: 12px; padding: 16px; }
.key { font-size: 12px; color: var(--muted); display: flex; flex-wrap: wrap; gap: 4px 12px; margin: 4px 0; }
.key i { display: inline-block; width: 14px; height: 0; border-top: 2px dashed; vertical-align: middle;
  margin-right: 4px; }
@media (max-width: 700px) {
  h1 { font-size: 16px; } h2 { font-size: 15px; }
  header.top, main, nav, footer { padding: 0 10px; }
  figure.meter { padding: 4px; }
  table.checks thead { display: none; }
  table.checks tr { display: grid; grid-template-columns: auto 1fr; gap: 0 8px; padding: 6px 0;
    border-bottom: 1px solid var(--line); }
  table.checks td { border: 0; padding: 1px 4px; }
  table.checks td.w, table.checks td.s, table.checks td.f { grid-column: 1 / -1; }
}
`;
