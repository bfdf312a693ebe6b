// Scenario results as text for people and JUnit XML for CI. The text is a function of the results
// alone (no wall-clock times or random ids), so the same file and seed give the same bytes; JUnit
// carries each step's time, file and line, for CI to show. A failure names the check, what differed,
// the step's `file:line` and what was seen.

import { isAbsolute, relative } from 'node:path';
import type { ScenarioReport } from './run.ts';

export function textReport(reports: ScenarioReport[]): string {
  const out: string[] = [];
  for (const r of reports) {
    out.push(`scenario ${r.file}: ${r.name}`, `  seed ${r.seed}, clock starts ${r.clockStart}`);
    if (r.setupError !== null) out.push(`  FAIL world: ${r.setupError}`);
    for (const s of r.steps) {
      out.push(`  ${String(s.index).padStart(2)}. ${s.name ? `${s.name}: ` : ''}${s.label}`);
      for (const c of s.checks) {
        if (c.failure === null) {
          out.push(`        ok    ${c.what}`);
          continue;
        }
        out.push(
          `        FAIL  ${c.what}: ${c.failure}`,
          `              at ${r.file}${s.line ? `:${s.line}` : ''}`,
        );
        if (c.seen !== undefined) out.push(`              seen ${c.seen}`);
      }
    }
    out.push(`  ${r.failed === 0 ? 'PASS' : 'FAIL'}: ${r.passed} passed, ${r.failed} failed`, '');
  }
  const failed = reports.filter((r) => r.failed > 0);
  const checks = reports.reduce((n, r) => n + r.passed + r.failed, 0);
  const failedChecks = reports.reduce((n, r) => n + r.failed, 0);
  out.push(
    `${reports.length} scenario(s), ${checks} expectation(s): ${failedChecks} failed${failed.length ? ` in ${failed.map((r) => r.file).join(', ')}` : ''}`,
    '',
  );
  return out.join('\n');
}

/** Text safe in an XML attribute: markup escaped, and the control characters XML 1.0 forbids dropped. */
function xml(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) continue;
    out += /[&<>"']/.test(ch) ? `&#${c};` : ch;
  }
  return out;
}

/**
 * A scenario file's JUnit classname: its path from `cwd` (the absolute one when outside it), dotted,
 * without extension: `fixtures/scenarios/cutoff.yaml` and `/work/x/fixtures/scenarios/cutoff.yaml`
 * run from /work/x are both `fixtures.scenarios.cutoff`; `/tmp/a.yaml` is `tmp.a`, never `.tmp.a`.
 */
export function junitClassname(file: string, cwd: string): string {
  const inside = isAbsolute(file) ? relative(cwd, file) : file;
  const path = inside.startsWith('..') || isAbsolute(inside) ? file : inside;
  return path
    .replace(/\.(ya?ml|json)$/i, '')
    .split(/[/\\]/)
    .filter((seg) => seg !== '' && seg !== '.' && seg !== '..' && !/^[A-Za-z]:$/.test(seg))
    .join('.');
}

export function junitReport(reports: ScenarioReport[], cwd = process.cwd()): string {
  const total = reports.reduce((n, r) => n + r.passed + r.failed, 0);
  const failures = reports.reduce((n, r) => n + r.failed, 0);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="meterstack scenarios" tests="${total}" failures="${failures}" errors="0">`,
  ];
  for (const r of reports) {
    const classname = xml(junitClassname(r.file, cwd));
    out.push(
      `  <testsuite name="${xml(r.name)}" file="${xml(r.file)}" tests="${r.passed + r.failed}" failures="${r.failed}" errors="0" time="${(r.steps.reduce((t, s) => t + s.ms, 0) / 1000).toFixed(3)}">`,
    );
    if (r.setupError !== null)
      out.push(
        `    <testcase classname="${classname}" name="world" file="${xml(r.file)}" time="0.000"><failure message="${xml(r.setupError)}"/></testcase>`,
      );
    for (const s of r.steps) {
      for (const c of s.checks) {
        const name = xml(
          `${String(s.index).padStart(2, '0')}. ${s.name ? `${s.name}: ` : ''}${s.label}: ${c.what}`,
        );
        const attrs = `classname="${classname}" name="${name}" file="${xml(r.file)}" line="${s.line}" time="${(s.ms / 1000).toFixed(3)}"`;
        if (c.failure === null) {
          out.push(`    <testcase ${attrs}/>`);
          continue;
        }
        const body = `${c.failure}\nat ${r.file}:${s.line}${c.seen !== undefined ? `\nseen ${c.seen}` : ''}`;
        out.push(
          `    <testcase ${attrs}><failure message="${xml(c.failure)}">${xml(body)}</failure></testcase>`,
        );
      }
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}
