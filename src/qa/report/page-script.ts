// The report page's one script: draws each meter's charts with uPlot (inlined before it) from the
// JSON inlined beside it. Two charts per meter on the run's virtual time axis (IST): power and energy;
// balance and relay. Events are dashed lines on both; expectations are dots along the top of the first,
// green held and red failed, a click on one going to its row [RP-5]. Plain ES2019, no build.

export const PAGE_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var dark = window.matchMedia && matchMedia('(prefers-color-scheme: dark)').matches;
  var INK = dark ? '#9da7b3' : '#57606a';
  var GRID = dark ? '#30363d' : '#e1e4e8';
  var MARK = data.colors;
  var OK = dark ? '#3fb950' : '#1a7f37';
  var BAD = dark ? '#ff7b72' : '#cf222e';
  var IST = 19800000;
  var MIN_AXIS = window.innerWidth < 700 ? 40 : 64;
  function ist(ms) { return new Date(ms + IST).toISOString().slice(0, 19).replace('T', ' '); }
  function span(ms) {
    var s = Math.round(ms / 1000), out = '';
    var parts = [[Math.floor(s / 86400), 'd'], [Math.floor(s / 3600) % 24, 'h'], [Math.floor(s / 60) % 60, 'm'], [s % 60, 's']];
    parts.forEach(function (p) { if (p[0] > 0) out += p[0] + p[1]; });
    return out || '0s';
  }
  function fixed(places, unit) {
    return function (u, v) { return v == null ? '—' : v.toFixed(places) + unit; };
  }
  /** An axis as wide as its longest value (uPlot's default is fixed, and clips 1524.000 kWh). */
  function axisSize(u, values, axisIdx, cycleNum) {
    var a = u.axes[axisIdx];
    if (cycleNum > 1) return a._size;
    var longest = (values || []).reduce(function (w, v) { return String(v).length > w.length ? String(v) : w; }, '');
    u.ctx.font = a.font[0];
    var need = Math.ceil(a.ticks.size + a.gap + u.ctx.measureText(longest).width / (window.devicePixelRatio || 1)) + 6;
    return Math.max(MIN_AXIS, need); // at least MIN_AXIS, so a meter's two charts line up
  }
  function axis(scale, side, label, fmt) {
    return { scale: scale, side: side, label: label, stroke: INK, labelSize: 18, size: axisSize,
      grid: { stroke: GRID, width: 1 }, ticks: { stroke: GRID, width: 1 },
      values: fmt ? function (u, vals) { return vals.map(fmt); } : undefined };
  }
  /** Sample times and relay changes as one ascending axis; values null where a series has none. */
  function align(m) {
    var at = {}, xs = [], t = 0;
    m.dt.forEach(function (d, i) { t += Math.round(d * 1000); at[t] = i; xs.push(t); });
    m.relay.forEach(function (r) { if (!(r[0] in at)) { at[r[0]] = -1; xs.push(r[0]); } });
    xs.sort(function (a, b) { return a - b; });
    var p = [], e = [], b = [], relay = [], k = 0, on = m.relay.length ? m.relay[0][1] : null;
    xs.forEach(function (x) {
      while (k < m.relay.length && m.relay[k][0] <= x) { on = m.relay[k][1]; k++; }
      var i = at[x];
      // An open relay passes no current: the power drops there, not at the next sample.
      p.push(i >= 0 ? m.p[i] : on === 0 ? 0 : null); e.push(i >= 0 ? m.e[i] : null); b.push(i >= 0 ? m.b[i] : null);
      relay.push(on);
    });
    return { xs: xs, p: p, e: e, b: b, relay: relay };
  }
  function overlay(run, meterId, withChecks) {
    return { hooks: { draw: function (u) {
      var ctx = u.ctx, bb = u.bbox, dpr = window.devicePixelRatio || 1;
      ctx.save();
      ctx.lineWidth = 1.5 * dpr;
      ctx.setLineDash([5 * dpr, 4 * dpr]);
      run.marks.forEach(function (m) {
        if (m.m !== null && m.m !== meterId) return;
        var x = u.valToPos((run.t0 + m.t) / 1000, 'x', true);
        if (x < bb.left - 1 || x > bb.left + bb.width + 1) return;
        ctx.strokeStyle = MARK[m.k] || INK;
        ctx.beginPath(); ctx.moveTo(x, bb.top); ctx.lineTo(x, bb.top + bb.height); ctx.stroke();
      });
      ctx.setLineDash([]);
      if (withChecks) run.checks.forEach(function (c) {
        if (c.m.length > 0 && c.m.indexOf(meterId) < 0) return;
        var x = u.valToPos((run.t0 + c.t) / 1000, 'x', true);
        ctx.fillStyle = c.ok ? OK : BAD;
        ctx.beginPath(); ctx.arc(x, bb.top + 6 * dpr, (c.ok ? 4 : 6) * dpr, 0, 2 * Math.PI); ctx.fill();
      });
      ctx.restore();
    } } };
  }
  function opts(run, runIndex, width, height, series, axes, plugins) {
    var lo = run.t0 / 1000, hi = Math.max(run.t1, run.t0 + 1000) / 1000;
    var scales = { x: { time: true, range: function () { return [lo, hi]; } } };
    if (series[2].scale === 'relay') scales.relay = { range: [-0.1, 1.1] };
    return {
      width: width, height: height, series: series, axes: axes, plugins: plugins,
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), 'Asia/Kolkata'); },
      scales: scales,
      cursor: { sync: { key: 'run' + runIndex }, drag: { x: false, y: false } },
      legend: { live: true },
    };
  }
  /** Ticks in IST on a 24-hour clock, the date under the first tick of each day. */
  function timeTicks(u, splits) {
    var prev = '', fine = u.scales.x.max - u.scales.x.min < 600;
    return splits.map(function (v) {
      var s = ist(v * 1000), day = s.slice(0, 10), hm = s.slice(11, fine ? 19 : 16);
      var out = day !== prev ? hm + '\\n' + day : hm;
      prev = day;
      return out;
    });
  }
  var X_AXIS = { stroke: INK, grid: { stroke: GRID, width: 1 }, ticks: { stroke: GRID, width: 1 }, values: timeTicks, size: 46 };
  var charts = [];
  function widthOf(el) { return Math.max(240, el.clientWidth); }
  function heightFor() { return window.innerWidth < 700 ? 150 : 190; }
  function timeSeries(run) {
    return { label: 'virtual time', value: function (u, ts) {
      return ts == null ? '—' : ist(ts * 1000) + ' (+' + span(ts * 1000 - run.t0) + ')';
    } };
  }
  document.querySelectorAll('figure.meter').forEach(function (fig) {
    var runIndex = Number(fig.getAttribute('data-run'));
    var run = data.runs[runIndex], m = run.meters[Number(fig.getAttribute('data-meter'))];
    var a = align(m), xs = a.xs.map(function (t) { return (run.t0 + t) / 1000; });
    var powerEl = fig.querySelector('.chart.power'), balanceEl = fig.querySelector('.chart.balance');
    var w = widthOf(powerEl), h = heightFor();
    var power = new uPlot(opts(run, runIndex, w, h, [
      timeSeries(run),
      { label: 'power', scale: 'W', stroke: '#d4a72c', width: 1.5, spanGaps: true, value: fixed(m.places.power, ' W') },
      { label: 'energy', scale: 'kWh', stroke: '#0969da', width: 1.5, spanGaps: true, value: fixed(m.places.energy, ' kWh') },
    ], [
      X_AXIS,
      axis('W', 3, 'W'),
      axis('kWh', 1, 'kWh', function (v) { return v == null ? '' : v.toFixed(Math.min(m.places.energy, 3)); }),
    ], [overlay(run, m.id, true)]), [xs, a.p, a.e], powerEl);
    var balance = new uPlot(opts(run, runIndex, w, h, [
      timeSeries(run),
      { label: 'balance', scale: 'paise', stroke: '#8250df', width: 1.5, spanGaps: true, value: fixed(0, ' paise') },
      { label: 'relay', scale: 'relay', stroke: '#1a7f37', width: 1.5, fill: dark ? 'rgba(63,185,80,.12)' : 'rgba(26,127,55,.10)',
        paths: uPlot.paths.stepped({ align: 1 }), points: { show: false }, value: function (u, v) { return v == null ? '—' : v ? 'closed' : 'open'; } },
    ], [
      X_AXIS,
      axis('paise', 3, 'paise'),
      axis('relay', 1, 'relay', function (v) { return v === 1 ? 'closed' : v === 0 ? 'open' : ''; }),
    ], [overlay(run, m.id, false)]), [xs, a.b, a.relay], balanceEl);
    power.over.addEventListener('click', function (ev) {
      var rect = power.over.getBoundingClientRect(), best = null, bestD = 12;
      run.checks.forEach(function (c) {
        if (c.m.length > 0 && c.m.indexOf(m.id) < 0) return;
        var d = Math.abs(power.valToPos((run.t0 + c.t) / 1000, 'x') - (ev.clientX - rect.left));
        if (d < bestD && (best === null || !c.ok)) { best = c; bestD = d; }
      });
      if (best) location.hash = best.id;
    });
    charts.push({ el: powerEl, u: power }, { el: balanceEl, u: balance });
  });
  var only = document.getElementById('only-failed');
  if (only) only.addEventListener('change', function () { document.body.classList.toggle('only-failed', only.checked); });
  var pending = false;
  window.addEventListener('resize', function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      charts.forEach(function (c) { c.u.setSize({ width: widthOf(c.el), height: heightFor() }); });
    });
  });
})();
`;
