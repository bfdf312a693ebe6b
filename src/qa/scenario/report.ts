// Scenario results as text for people and JUnit XML for CI. Both are functions of the results alone
// (no wall-clock times, durations or random ids), so the same file and seed give the same bytes.

import type { ScenarioReport } from './run.ts';

export function textReport(reports: ScenarioReport[]): string {
  const out: string[] = [];
  for (const r of reports) {
    out.push(`scenario ${r.file}: ${r.name}`, `  seed ${r.seed}, clock starts ${r.clockStart}`);
    if (r.setupError !== null) out.push(`  FAIL world: ${r.setupError}`);
    for (const s of r.steps) {
      out.push(`  ${String(s.index).padStart(2)}. ${s.name ? `${s.name}: ` : ''}${s.label}`);
      for (const c of s.checks)
        out.push(c.failure === null ? `        ok    ${c.what}` : `        FAIL  ${c.what}: ${c.failure}`);
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

export function junitReport(reports: ScenarioReport[]): string {
  const total = reports.reduce((n, r) => n + r.passed + r.failed, 0);
  const failures = reports.reduce((n, r) => n + r.failed, 0);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="meterstack scenarios" tests="${total}" failures="${failures}" errors="0">`,
  ];
  for (const r of reports) {
    const classname = xml(r.file.replace(/\.(ya?ml|json)$/i, '').replace(/[/\\]/g, '.'));
    out.push(
      `  <testsuite name="${xml(r.name)}" file="${xml(r.file)}" tests="${r.passed + r.failed}" failures="${r.failed}" errors="0">`,
    );
    if (r.setupError !== null)
      out.push(
        `    <testcase classname="${classname}" name="world"><failure message="${xml(r.setupError)}"/></testcase>`,
      );
    for (const s of r.steps) {
      for (const c of s.checks) {
        const name = xml(
          `${String(s.index).padStart(2, '0')}. ${s.name ? `${s.name}: ` : ''}${s.label}: ${c.what}`,
        );
        out.push(
          c.failure === null
            ? `    <testcase classname="${classname}" name="${name}"/>`
            : `    <testcase classname="${classname}" name="${name}"><failure message="${xml(c.failure)}"/></testcase>`,
        );
      }
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}
