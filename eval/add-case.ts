import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { blockContent, findFencedBlocks, splitLines } from '../src/core/task/fenced-blocks.js';
import { CaseManifest, loadCase } from './corpus-case.js';

/**
 * `node --import tsx eval/add-case.ts <git-dir> <sha> <id> [--like CASE_DIR] [--mention TEXT ...] [--out DIR]`
 *
 * Extracts a corpus case from a local clone (working copy or bare): before/ holds the files the
 * commit changed at its parent, plus every file that mentions one of the task's names (the
 * steps' `from`, `package` and `find`, and `--mention`), the build manifests on the paths to the
 * root, and `.gitmodules`; after/ holds the same paths at the commit (deleted files absent).
 * `--like` takes the task, recipes, language and license from an existing case (typically its
 * reconstruction); otherwise case.yaml is a skeleton to finish by hand.
 */

/** Build files whose presence on a path to the root decides what a recipe may touch. */
const MANIFESTS = [
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'settings.gradle',
  'settings.gradle.kts',
  'gradle/libs.versions.toml',
  'package.json',
  'go.mod',
  'go.work',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'Cargo.toml',
];
/** A mentioning file larger than this is left out (the changed files are always kept). */
const MAX_MENTION_BYTES = 64 * 1024;
const CASE_BUDGET_BYTES = 200 * 1024;

function gitIn(gitDir: string) {
  return (args: string[]): Buffer => execFileSync('git', ['--git-dir', gitDir, ...args], { maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

function blobOrUndefined(git: ReturnType<typeof gitIn>, rev: string, path: string): Buffer | undefined {
  try {
    return git(['cat-file', 'blob', `${rev}:${path}`]);
  } catch {
    return undefined;
  }
}

/** The names a recipe searches for: what a wrongly scoped step could touch. */
function taskNames(task: string): string[] {
  const lines = splitLines(task);
  const block = findFencedBlocks(lines).find((b) => b.infoWord === 'agent');
  if (!block) return [];
  const parsed = parseYaml(blockContent(lines, block).join('\n')) as { steps?: Record<string, unknown>[] } | null;
  return (parsed?.steps ?? [])
    .flatMap((s) => [s.from, s.package, s.find].filter((v): v is string => typeof v === 'string' && v.length > 0))
    .map((name) => (name.includes(':') && !name.includes('/') ? name.split(':')[1] : name));
}

function ancestorsOf(path: string): string[] {
  const dirs: string[] = [];
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    dirs.push(dir === '.' ? '' : dir);
    if (dir === '.' || dir === '/') break;
  }
  return dirs;
}

type Git = ReturnType<typeof gitIn>;
type Like = ReturnType<typeof loadCase>['manifest'] | undefined;

/** Every path a case may need: the changed files, files at the parent that mention `names`, nearby manifests, .gitmodules. */
function candidatesOf(git: Git, parent: string, changed: string[], names: string[]): string[] {
  const mentioning = names.flatMap((name) => {
    try {
      return git(['grep', '-l', '-z', '-F', '-e', name, parent])
        .toString()
        .split('\0')
        .filter(Boolean)
        .map((hit) => hit.slice(parent.length + 1));
    } catch {
      return []; // git grep exits 1 when nothing matches
    }
  });
  const manifests = [...new Set(changed.flatMap(ancestorsOf))].flatMap((dir) => MANIFESTS.map((m) => (dir ? `${dir}/${m}` : m)));
  return [...new Set([...changed, ...mentioning, ...manifests, '.gitmodules'])].sort();
}

/** Write each candidate's before/after fixtures under `out` (a large unchanged file is left out); returns what was kept. */
function writeFixtures(
  git: Git,
  revs: { parent: string; commit: string },
  candidates: string[],
  changed: string[],
  out: string,
): { bytes: number; kept: string[] } {
  // One listing per side instead of a lookup per candidate: most candidate manifests do not exist.
  const listing = (rev: string) => new Set(git(['ls-tree', '-r', '--name-only', '-z', rev]).toString().split('\0').filter(Boolean));
  const [atParent, atCommit] = [listing(revs.parent), listing(revs.commit)];
  let bytes = 0;
  const kept: string[] = [];
  for (const path of candidates) {
    const before = atParent.has(path) ? blobOrUndefined(git, revs.parent, path) : undefined;
    const after = atCommit.has(path) ? blobOrUndefined(git, revs.commit, path) : undefined;
    if (!before && !after) continue;
    const size = (before?.length ?? 0) + (after?.length ?? 0);
    if (!changed.includes(path) && size > 2 * MAX_MENTION_BYTES) continue;
    for (const [side, content] of [
      ['before', before],
      ['after', after],
    ] as const) {
      if (!content) continue;
      mkdirSync(dirname(join(out, side, path)), { recursive: true });
      writeFileSync(join(out, side, path), content);
    }
    bytes += size;
    kept.push(path);
  }
  return { bytes, kept };
}

/** The case manifest: what `like` says, else a skeleton to fill in. */
function manifestOf(git: Git, ids: { id: string; repository: string; commit: string; parent: string }, like: Like): CaseManifest {
  const { id, repository, commit, parent } = ids;
  return {
    id,
    repository,
    url: `https://github.com/${repository}/commit/${commit}`,
    commit,
    parent,
    language: like?.language ?? 'go',
    recipes: like?.recipes ?? ['replace'],
    license: like?.license ?? 'UNKNOWN: fill in',
    fixtures: 'extracted',
    ...(like?.refresh ? { refresh: like.refresh } : {}),
    ...(like?.notes ? { notes: like.notes } : {}),
    task: like?.task ?? `${git(['log', '-1', '--format=%s', commit]).toString().trim()}\n\n\`\`\`agent\nmode: draft_pr\nsteps: []\n\`\`\`\n`,
  };
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { like: { type: 'string' }, mention: { type: 'string', multiple: true }, out: { type: 'string' }, repository: { type: 'string' } },
  });
  const [gitDirArg, sha, id] = positionals;
  if (!gitDirArg || !sha || !id)
    throw new Error('usage: add-case.ts <git-dir> <sha> <id> [--like CASE_DIR] [--mention TEXT ...] [--out DIR] [--repository owner/name]');
  const gitDir = execFileSync('git', ['-C', resolve(gitDirArg), 'rev-parse', '--absolute-git-dir'])
    .toString()
    .trim();
  const git = gitIn(gitDir);
  const commit = git(['rev-parse', `${sha}^{commit}`])
    .toString()
    .trim();
  const parent = git(['rev-parse', `${commit}^`])
    .toString()
    .trim();
  const like = values.like ? loadCase(resolve(values.like)).manifest : undefined;

  const changed = git(['diff-tree', '-r', '--no-renames', '--name-only', '-z', parent, commit]).toString().split('\0').filter(Boolean);
  const candidates = candidatesOf(git, parent, changed, [...taskNames(like?.task ?? ''), ...(values.mention ?? [])]);
  const out = resolve(values.out ?? join(tmpdir(), 'draftsman-corpus'), id);
  const { bytes, kept } = writeFixtures(git, { parent, commit }, candidates, changed, out);

  const repository = values.repository ?? like?.repository ?? basename(dirname(gitDir)).replace('+', '/');
  const manifest = manifestOf(git, { id, repository, commit, parent }, like);
  writeFileSync(join(out, 'case.yaml'), stringifyYaml(CaseManifest.parse(manifest), { lineWidth: 0 }));
  process.stdout.write(
    `${out}: ${kept.length} files (${changed.length} changed), ${Math.round(bytes / 1024)} KB${bytes > CASE_BUDGET_BYTES ? ' — over the 200 KB budget, trim it' : ''}\n`,
  );
  if (!like) process.stdout.write('case.yaml is a skeleton: set language, recipes, license and the task.\n');
}

try {
  main();
} catch (error) {
  process.stderr.write(`add-case: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
