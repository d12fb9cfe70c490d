import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { judge } from '../../../bench/goals.js';
import { realRepos, runRealReposBench, SKIPPED_NOTE } from '../../../bench/real-repos.bench.js';
import { gitEnv } from '../../fixtures/make-repo.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const script = join(root, 'scripts', 'prepare-bench-repos.sh');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const git = (cwd: string, args: string[], input?: string): string => execFileSync('git', args, { cwd, env: gitEnv(), input, encoding: 'utf8' }).trim();

/** A bare repository `<dir>/<owner>+<name>/repo` with two commits; returns the tip and the tip's blob ids by path. */
function sourceRepo(dir: string, slug: string, files: Record<string, string>): { tip: string; blobs: Record<string, string> } {
  const work = join(dir, `${slug}-work`);
  mkdirSync(work, { recursive: true });
  git(work, ['init', '-q', '-b', 'trunk']);
  writeFileSync(join(work, 'OLD.md'), 'history\n');
  git(work, ['add', '-A']);
  git(work, ['commit', '-q', '-m', 'first']);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), content);
  }
  git(work, ['add', '-A']);
  git(work, ['commit', '-q', '-m', 'second\n\nwith a body']);
  const bare = join(dir, slug, 'repo');
  git(dir, ['clone', '-q', '--bare', work, bare]);
  const blobs = Object.fromEntries(Object.keys(files).map((p) => [p, git(bare, ['rev-parse', `HEAD:${p}`])]));
  return { tip: git(bare, ['rev-parse', 'HEAD']), blobs };
}

describe('scripts/prepare-bench-repos.sh', () => {
  it('keeps only the tip (depth 1) at the pinned commit, or the tree without the blobs a partial source lacks, and records both', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prepare-bench-'));
    dirs.push(dir);
    const source = join(dir, 'source');
    const app = sourceRepo(source, 'acme+app', { 'src/main.go': 'package main\n', 'README.md': '# app\n' });
    const partial = sourceRepo(source, 'acme+partial', { 'src/index.ts': 'export {};\n', 'testdata/huge.json': '{"big": true}\n' });
    // A partial copy: the source no longer has one blob of its tip (as a clone made with a size filter has).
    const missing = partial.blobs['testdata/huge.json'];
    const bare = join(source, 'acme+partial', 'repo');
    git(bare, ['repack', '-q', '-a', '-d']);
    const keep = git(bare, ['rev-list', '--objects', '--all'])
      .split('\n')
      .map((l) => l.split(' ')[0])
      .filter((oid) => oid !== missing);
    execFileSync('git', ['pack-objects', '-q', join(bare, 'objects', 'pack', 'kept')], { cwd: bare, input: `${keep.join('\n')}\n`, env: gitEnv() });
    for (const f of execFileSync('ls', [join(bare, 'objects', 'pack')], { encoding: 'utf8' })
      .trim()
      .split('\n'))
      if (f.startsWith('pack-')) unlinkSync(join(bare, 'objects', 'pack', f));
    expect(() => git(bare, ['cat-file', '-e', missing])).toThrow();
    const list = join(dir, 'list.json');
    const entry = (name: string, commit: string) => ({
      name,
      repo: `acme/${name}`,
      shape: 'test',
      commit,
      targetsTask: 'x',
      recipe: { path: 'a', find: 'b', replace: 'c' },
    });
    writeFileSync(list, JSON.stringify([entry('app', app.tip), entry('partial', partial.tip)]));
    const out = join(dir, 'repos');
    const env = { ...process.env, ...gitEnv(), BENCH_REPOS_DIR: out, BENCH_REPOS_SOURCE: source, BENCH_REPOS_LIST: list };
    execFileSync('bash', [script], { env, stdio: 'pipe' });

    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Record<string, unknown>[];
    expect(manifest[0]).toEqual({ name: 'app', repo: 'acme/app', branch: 'trunk', commit: app.tip, pinned: true, files: 3 });
    expect(git(join(out, 'app.git'), ['rev-list', '--count', 'HEAD'])).toBe('1');
    expect(git(join(out, 'app.git'), ['symbolic-ref', 'HEAD'])).toBe('refs/heads/trunk');
    const rewritten = join(out, 'partial.git');
    expect(manifest[1]).toMatchObject({ name: 'partial', pinned: false, files: 2, upstreamCommit: partial.tip, omitted: 'testdata/huge.json' });
    expect(git(rewritten, ['ls-tree', '-r', '--name-only', 'HEAD']).split('\n')).toEqual(['OLD.md', 'src/index.ts']);
    expect(git(rewritten, ['log', '-1', '--format=%B%an%aI'])).toBe(git(bare, ['log', '-1', '--format=%B%an%aI', partial.tip]));
    expect(git(rewritten, ['rev-list', '--parents', 'HEAD'])).toBe(manifest[1].commit);
    git(rewritten, ['fsck', '--connectivity-only']);

    // Prepared already: kept as it is, and the benchmark finds both.
    execFileSync('bash', [script], { env, stdio: 'pipe' });
    expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))).toEqual(manifest);
    expect(realRepos({ BENCH_REPOS_LIST: list }).map((r) => r.name)).toEqual(['app', 'partial']);
  });
});

describe('bench/real-repos.bench.ts', () => {
  it('reports each repository that was not prepared as one skipped row, which no goal judges', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'real-empty-'));
    dirs.push(dir);
    const before = process.env.BENCH_REPOS_DIR;
    process.env.BENCH_REPOS_DIR = dir;
    try {
      const records = await runRealReposBench({ runs: 1 });
      expect(records.map((r) => r.name)).toEqual(realRepos().map((r) => `real.${r.name}`));
      for (const r of records) {
        expect(r).toMatchObject({ note: SKIPPED_NOTE });
        expect(Number.isNaN(r.value)).toBe(true);
        expect(judge(r).met).toBeNull();
      }
    } finally {
      if (before === undefined) delete process.env.BENCH_REPOS_DIR;
      else process.env.BENCH_REPOS_DIR = before;
    }
  });
});
