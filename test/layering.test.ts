// Issue 19 §6: imports point one way, and `npm run lint` says so. The checker (dependency-cruiser with
// .dependency-cruiser.cjs over the table in scripts/layers.cjs) runs here on a small planted tree, so a
// wrong import is shown to fail with the rule's name, and the real tree is shown to pass.

import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/child.ts';

const run = promisify(execFile);
const DEPCRUISE = join(REPO_ROOT, 'node_modules/.bin/depcruise');
const { ROOMS } = createRequire(import.meta.url)(join(REPO_ROOT, 'scripts/layers.cjs')) as {
  ROOMS: { room: string; path: string; mayImport: string[] }[];
};

async function cruise(cwd: string, ...paths: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await run(DEPCRUISE, [...paths, '--config', '.dependency-cruiser.cjs'], { cwd });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout + err.stderr };
  }
}

describe('issue 19 §6: the layering is checked by npm run lint', () => {
  const dir = mkdtempSync(join(tmpdir(), 'layering-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  copyFileSync(join(REPO_ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  put('scripts/layers.cjs', '');
  copyFileSync(join(REPO_ROOT, 'scripts/layers.cjs'), join(dir, 'scripts/layers.cjs'));
  put(
    'tsconfig.json',
    JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true, noEmit: true } }),
  );
  put('src/world/deep.ts', 'export const deep = 1;\n');
  put('src/store/low.ts', 'export const low = 2;\n');

  it('every room may import only rooms below it: the table has no arrow back up', () => {
    const index = new Map(ROOMS.map((r, i) => [r.room, i]));
    for (const [i, r] of ROOMS.entries()) {
      for (const m of r.mayImport) {
        expect(index.has(m), `${r.room} names an unknown room ${m}`).toBe(true);
        expect(index.get(m)!, `${r.room} may import ${m}, which sits above it`).toBeLessThan(i);
      }
    }
  });

  it('an import down the layering passes', async () => {
    put('src/world/ok.ts', "import { low } from '../store/low.ts';\nexport const ok = low;\n");
    const r = await cruise(dir, 'src/world/ok.ts');
    expect(r.out).toMatch(/no dependency violations/);
    expect(r.code).toBe(0);
  }, 60_000);

  it('an import up the layering fails, naming the rule and both files', async () => {
    put('src/store/up.ts', "import { deep } from '../world/deep.ts';\nexport const up = deep;\n");
    const r = await cruise(dir, 'src/store/up.ts');
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/error store-may-import: src\/store\/up\.ts → src\/world\/deep\.ts/);
  }, 60_000);

  it('the real tree has no import against the table', async () => {
    const r = await cruise(REPO_ROOT, 'src', 'simulator', 'firmware-protocol');
    expect(r.out).toMatch(/no dependency violations/);
    expect(r.code).toBe(0);
  }, 120_000);
});

/** The room a path of the repository (file or folder) belongs to, or undefined. */
function roomOfPath(path: string): string | undefined {
  const candidates = [path, `${path}/`, path.replace(/\/$/, '')];
  return ROOMS.find((r) => candidates.some((c) => new RegExp(r.path).test(c)))?.room;
}

/** A name written in backticks in a README of `dir`, as the room it names (relative to dir, src/ or the root). */
function roomNamed(dir: string, name: string): string | undefined {
  const clean = name.replace(/[.,;:)]+$/, '');
  for (const base of [dir, join(REPO_ROOT, 'src'), REPO_ROOT]) {
    const abs = resolve(base, clean);
    if (existsSync(abs)) return roomOfPath(relative(REPO_ROOT, abs));
  }
  return undefined;
}

const rooms = (dir: string, text: string): Set<string> =>
  new Set([...text.matchAll(/`([^`]+)`/g)].flatMap((m) => roomNamed(dir, m[1]!) ?? []));

describe('issue 19 §6: the READMEs say what the checker enforces', () => {
  it('src/README.md has one row per room, and its "may import" column is the table, room for room', () => {
    const text = readFileSync(join(REPO_ROOT, 'src/README.md'), 'utf8');
    const rows = text
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => l.split(' | '));
    const seen = new Map<string, Set<string>>();
    for (const cells of rows) {
      const room = roomNamed(join(REPO_ROOT, 'src'), cells[0]!.replace(/^\| `|`$/g, ''));
      expect(room, `a row of src/README.md names no room: ${cells[0]}`).toBeDefined();
      seen.set(room!, rooms(join(REPO_ROOT, 'src'), cells.at(-1)!));
    }
    for (const r of ROOMS) {
      expect(seen.has(r.room), `src/README.md has no row for ${r.room}`).toBe(true);
      expect([...seen.get(r.room)!].sort(), `src/README.md's "may import" of ${r.room}`).toEqual(
        [...r.mayImport].sort(),
      );
    }
  });

  it('every folder README\'s "May import" line names only rooms its room may import', () => {
    const readmes = (dir: string): string[] =>
      existsSync(dir)
        ? [
            ...(existsSync(join(dir, 'README.md')) ? [join(dir, 'README.md')] : []),
            ...readdirSync(dir, { withFileTypes: true })
              .filter((e) => e.isDirectory() && e.name !== 'node_modules')
              .flatMap((e) => readmes(join(dir, e.name))),
          ]
        : [];
    const files = ['src', 'simulator', 'firmware-protocol'].flatMap((d) => readmes(join(REPO_ROOT, d)));
    let lines = 0;
    for (const file of files) {
      const dir = dirname(file);
      const own = roomOfPath(`${relative(REPO_ROOT, dir)}/`);
      if (!own) continue;
      const allowed = new Set([own, ...ROOMS.find((r) => r.room === own)!.mayImport]);
      const text = readFileSync(file, 'utf8');
      // The sentence after "May import:", to its full stop (a dot before a space or the end of a line).
      const may = /May import:([\s\S]*?)\.(\s|$)/i.exec(text);
      if (!may) continue;
      lines++;
      for (const named of rooms(dir, may[1]!)) {
        expect(allowed.has(named), `${relative(REPO_ROOT, file)} says ${own} may import ${named}`).toBe(true);
      }
    }
    expect(lines).toBeGreaterThan(5);
  });
});
