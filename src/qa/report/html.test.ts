// RP-2, RP-5, RP-6, RP-7: the page builder escapes what a run supplies, shows failures as text with
// their line, and gives the same bytes for the same data.

import { describe, expect, it } from 'vitest';
import { reportAssets } from './assets.ts';
import { scriptJson } from './escape.ts';
import { span } from './format.ts';
import { reportHtml } from './html.ts';
import type { ReportData } from './model.ts';
import { sourceHref } from './write.ts';

const EVIL = '</script><script>alert(1)</script><!--';
const T0 = Date.parse('2026-01-05T00:00:00+05:30');

const data: ReportData = {
  kind: 'scenario',
  title: EVIL,
  writtenAt: 0,
  wallMs: 1234,
  runs: [
    {
      file: `dir/${EVIL}.yaml`,
      href: sourceHref('/r/out.html', `/r/dir/${EVIL}.yaml`),
      name: EVIL,
      seed: 7,
      vtStart: T0,
      vtEnd: T0 + 1_125_000,
      wallMs: 500,
      setupError: null,
      notes: [],
      meters: [
        {
          id: EVIL,
          places: { power: 1, energy: 3 },
          t: [T0, T0 + 60_000],
          power: [1000, 0],
          energy: [0, 0.017],
          balance: [100, -1],
          relay: [
            [T0, true],
            [T0 + 60_000, false],
          ],
        },
      ],
      marks: [{ t: T0 + 60_000, kind: 'cutoff', meter: EVIL, text: EVIL }],
      checks: [
        {
          t: T0 + 1_125_000,
          meters: [],
          step: 3,
          line: 14,
          label: EVIL,
          what: 'relay true',
          ok: false,
          failure: 'expected true, got false',
          seen: EVIL,
        },
        {
          t: T0,
          meters: [],
          step: 1,
          line: 9,
          label: 'meter M',
          what: 'balance 100',
          ok: true,
          failure: null,
          seen: null,
        },
      ],
      thinned: false,
    },
  ],
};

describe('reportHtml', () => {
  const html = reportHtml(data, reportAssets());

  it('RP-2: markup from a run is text, and the data cannot end its script element', () => {
    const scripts = html.match(/<script\b/g) ?? [];
    expect(scripts).toHaveLength(3); // the data, uPlot, the page's own
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!--');
    const json = html.slice(
      html.indexOf('id="report-data">') + 17,
      html.indexOf('</script>', html.indexOf('id="report-data">')),
    );
    expect(JSON.parse(json).runs[0].meters[0].id).toBe(EVIL);
    expect(scriptJson('\u2028</')).toBe('"\\u2028\\u003c/"');
  });

  it('RP-1: nothing is loaded from elsewhere', () => {
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    expect(html).toContain('uPlot');
  });

  it('RP-5, RP-6: a failed expectation reads as text with its time, what was seen and its line', () => {
    const row = html.slice(html.indexOf('<tr id="check-1-1" class="fail">'));
    expect(row).toContain('✗ FAILED');
    expect(row).toContain('00:18:45 <small>+18m45s</small>');
    expect(row).toContain('expected true, got false');
    // The name's `/` makes folders of it; each segment encoded, the line as #L14.
    expect(row).toContain('href="dir/%3C/script%3E%3Cscript%3Ealert(1)%3C/script%3E%3C!--.yaml#L14"');
    expect(html).toContain('<b>2</b> expectations: <b class="ok">1 passed</b>, <b class="bad">1 failed</b>');
    expect(html).toContain('seed 7');
  });

  it('RP-7: the same data gives the same bytes', () => {
    expect(reportHtml(data, reportAssets())).toBe(html);
  });

  it('spans read as a person writes them', () => {
    expect([span(0), span(1250), span(1_125_000), span(21_600_000), span(90_061_000)]).toEqual([
      '0s',
      '1.25s',
      '18m45s',
      '6h',
      '1d1h1m1s',
    ]);
  });
});
