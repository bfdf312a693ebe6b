// uPlot charts as small components: one draws a time series it is given (x in ms, IST labels).

import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

// uPlot's axis and legend templates are US-style (11/23/26, 6pm); the console speaks IST as India
// writes it: 23 Nov, 18:00.
const DATE_STYLE = [
  [/\{M\}\/\{D\}\/\{YY\}/g, '{D} {MMM} {YYYY}'],
  [/\{M\}\/\{D\}/g, '{D} {MMM}'],
  [/\{h\}:\{mm\}:\{ss\}\{aa\}/g, '{HH}:{mm}:{ss}'],
  [/\{h\}:\{mm\}\{aa\}/g, '{HH}:{mm}'],
  [/\{h\}\{aa\}/g, '{HH}:00'],
];
const fmtDate = (tpl) => uPlot.fmtDate(DATE_STYLE.reduce((t, [re, to]) => t.replace(re, to), tpl));

const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

/**
 * `xs` ms since epoch, `ys` numbers; `label` names the series and its unit; `empty` what it says with
 * no points; `onDrawn` is called on the frame after new data were drawn.
 */
export function TimeChart({ xs, ys, label, height = 180, stepped = false, empty = 'no data yet', onDrawn }) {
  const box = useRef(null);
  const plot = useRef(null);
  const drawn = useRef(onDrawn);
  drawn.current = onDrawn;
  useEffect(() => {
    const el = box.current;
    const stroke = css('--accent') || '#2563eb';
    const axis = { stroke: css('--muted') || '#666', grid: { stroke: css('--line') || '#ddd', width: 1 } };
    plot.current = new uPlot(
      {
        width: el.clientWidth || 600,
        height,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Asia/Kolkata'),
        fmtDate,
        legend: { show: true },
        scales: { x: { time: true } },
        axes: [axis, { ...axis, size: 60 }],
        series: [
          {},
          {
            label,
            stroke,
            width: 2,
            fill: `${stroke}22`,
            points: { size: 4 },
            paths: stepped ? uPlot.paths.stepped({ align: 1 }) : undefined,
          },
        ],
      },
      [[], []],
      el,
    );
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [label, height, stepped]);
  useEffect(() => {
    const p = plot.current;
    if (!p) return;
    p.setData([xs.map((x) => x / 1000), ys]);
    // One point alone would stretch the axis over years: show the hour around it instead.
    if (xs.length === 1) p.setScale('x', { min: xs[0] / 1000 - 1800, max: xs[0] / 1000 + 1800 });
    if (drawn.current) requestAnimationFrame(() => drawn.current?.());
  }, [xs, ys]);
  return html`<div class="chart" ref=${box} data-points=${xs.length}>
    ${xs.length === 0 ? html`<p class="chart-empty muted">${empty}</p>` : null}
  </div>`;
}
