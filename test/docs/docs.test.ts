// Issue 20 item 7: a fresh clone stands alone. The docs linked to ../shared/spec/…, which only the
// machine they were written on had; the API reference a user follows is docs/api.md, and it names
// every operation and error code the service documents in its OpenAPI document.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKIP_DIRS = new Set(['node_modules', 'dist', 'data', '.git']);

/** The repository's markdown files: git's list in a checkout, else every one under the root. */
function markdownFiles(): string[] {
  try {
    const out = execFileSync(
      'git',
      ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '*.md'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    return out.split('\0').filter((f) => f !== '');
  } catch {
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory() && !SKIP_DIRS.has(e.name)) walk(join(dir, e.name));
        else if (e.isFile() && e.name.endsWith('.md')) found.push(relative(ROOT, join(dir, e.name)));
      }
    };
    walk(ROOT);
    return found;
  }
}

/** Relative link targets of a markdown text: `](target)`, without a `#fragment`. */
function relativeLinks(text: string): string[] {
  const links: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!.split('#')[0]!;
    if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // a fragment, https:, mailto:
    links.push(target);
  }
  return links;
}

describe('the repository stands alone', () => {
  const files = markdownFiles();

  it('finds the markdown files it checks', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/spec-decisions.md']));
  });

  it('no markdown file mentions ../shared, which a clone does not have', () => {
    const offenders = files.flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\.\.\/shared\b|\/work\/shared\b/.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(offenders).toEqual([]);
  });

  it('every relative markdown link points at a file of the repository', () => {
    const broken = files.flatMap((f) =>
      relativeLinks(readFileSync(join(ROOT, f), 'utf8'))
        .filter((link) => {
          const target = resolve(ROOT, dirname(f), link);
          return relative(ROOT, target).startsWith('..') || !existsSync(target);
        })
        .map((link) => `${f}: ${link}`),
    );
    expect(broken).toEqual([]);
  });
});

describe('docs/api.md', () => {
  let t: TestService;
  let doc: { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> };
  const api = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
  beforeAll(async () => {
    t = await startTestService({ speed: 0 });
    doc = (await (await fetch(`${t.svc.httpUrl}/openapi.json`)).json()) as typeof doc;
  });
  afterAll(() => t.close());

  const v2 = () =>
    Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v2/'))
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));

  it('describes each of the 15 operations, as `METHOD path`', () => {
    const ops = v2();
    expect(ops).toHaveLength(15);
    const missing = ops
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .filter((line) => !api.includes(`\`${line}\``) && !api.includes(`\`${line}?`));
    expect(missing).toEqual([]);
  });

  it('names every error code the v2 operations can answer', () => {
    const codes = new Set(
      v2().flatMap(({ op }) =>
        Object.values(op.responses).flatMap((r) =>
          [...r.description.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!),
        ),
      ),
    );
    expect(codes.size).toBeGreaterThan(8);
    expect([...codes].filter((code) => !api.includes(`\`${code}\``))).toEqual([]);
  });
});
