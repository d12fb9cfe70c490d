/**
 * Builds the real-commit secret-scan corpus: the ADDED lines of recent commits of public
 * repositories (bare git directories given on the command line), one patch-like text file per
 * repository under `test/fixtures/secret-corpus/real/` (git-ignored: the text belongs to those
 * repositories and is never committed). Binary files are skipped; each file's added
 * lines and each commit are capped so the corpus stays small.
 *
 *   node --import tsx eval/secrets/build-corpus.ts [--skip N] [--out DIR] <name>=<gitdir> ...
 *
 * `--skip N` starts N commits back (a second, held-out sample for checking that the rules were not
 * fitted to the stored one); `--out` writes elsewhere than the fixture directory.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const SKIP = Number(option('--skip') ?? 0);
const OUT = option('--out') ?? join(import.meta.dirname, '../../test/fixtures/secret-corpus/real');
const RECENT = 40;
/** Extra commits touching files where false positives live (manifests, lockfiles, XML, docs). */
const INTERESTING = [
  'go.sum',
  'go.mod',
  'pom.xml',
  'package.json',
  'pnpm-lock.yaml',
  'package-lock.json',
  'yarn.lock',
  '*.xml',
  '*.md',
  'requirements*.txt',
  'pyproject.toml',
  '*.gradle',
  '*.lock',
];
const PER_PATTERN = 2;
const MAX_FILE_BYTES = 3000;
const MAX_COMMIT_BYTES = 9000;
const MAX_LINE = 400;

const git = (gitdir: string, args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });

function commitsOf(gitdir: string): string[] {
  const shas = new Set(
    git(gitdir, ['log', '--no-merges', '--format=%H', `--skip=${SKIP}`, '-n', String(RECENT), 'HEAD'])
      .split('\n')
      .filter(Boolean),
  );
  for (const p of INTERESTING) {
    const found = git(gitdir, ['log', '--no-merges', '--format=%H', `--skip=${SKIP}`, '-n', String(PER_PATTERN), 'HEAD', '--', `:(glob)**/${p}`])
      .split('\n')
      .filter(Boolean);
    for (const s of found) shas.add(s);
  }
  return [...shas];
}

/** The added lines of one commit as `+++ b/<path>`, `@@ +<line> @@` and `+<text>` lines. */
function addedOf(gitdir: string, sha: string): string {
  const patch = git(gitdir, ['show', '--format=', '--no-color', '--no-ext-diff', '-U0', sha]);
  const out: string[] = [];
  let file: string[] = [];
  let fileBytes = 0;
  let total = 0;
  let path: string | undefined;
  let skip = false;
  const flush = () => {
    if (path && file.length > 0 && total + fileBytes <= MAX_COMMIT_BYTES) {
      out.push(`+++ b/${path}`, ...file);
      total += fileBytes;
    }
    file = [];
    fileBytes = 0;
  };
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      flush();
      path = undefined;
      skip = false;
      continue;
    }
    if (line.startsWith('Binary files ')) skip = true;
    if (line.startsWith('+++ ')) {
      path = line === '+++ /dev/null' ? undefined : line.slice(6);
      continue;
    }
    if (skip || !path || fileBytes > MAX_FILE_BYTES) continue;
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      file.push(`@@ +${hunk[1]} @@`);
      continue;
    }
    if (line.startsWith('+') && line.length <= MAX_LINE + 1) {
      file.push(line);
      fileBytes += line.length + 1;
    } else if (line.startsWith('+')) {
      // Over-long lines (minified code, data) are kept as markers of where they were.
      file.push('+');
    }
  }
  flush();
  return out.length > 0 ? [`commit ${sha}`, ...out].join('\n') : '';
}

mkdirSync(OUT, { recursive: true });
for (const arg of args) {
  const [name, gitdir] = arg.split('=');
  const shas = commitsOf(gitdir);
  const parts = shas
    .map((s) => {
      try {
        return addedOf(gitdir, s);
      } catch {
        // A snapshot may lack some large blobs; such a commit is left out.
        return '';
      }
    })
    .filter(Boolean);
  writeFileSync(join(OUT, `${name}.patch`), `${parts.join('\n')}\n`);
  console.log(`${name}: ${parts.length} commits`);
}
