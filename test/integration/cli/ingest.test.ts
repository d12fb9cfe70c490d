import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_TREES, commitFiles, git, makeBareRepo, makeRawTreeRepo, makeSubmoduleRepo } from '../../fixtures/make-repo.js';
import { mavenMultiModuleRepo, pythonPackageRepo } from '../../fixtures/realistic-repos.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli, makeWorkingCopy } from './cli-harness.js';

/** `draftsman ingest` (issue 2 through the CLI): READY with the pinned base, every drill's reason and exit code. */
let root: string;
let out: string;
let work: string;
let maven: string;

/** The fields the CLI contract allows on the --json line (publish and details are extensions for run and failures). */
const REQUIRED = ['runId', 'attempt', 'status', 'baseRef', 'baseCommitSha', 'agentBranch', 'runDir', 'artifacts', 'found'];
const OPTIONAL = ['reason', 'message', 'runStatus', 'headCommitSha', 'headTreeSha', 'publish', 'details', 'phases'];

beforeAll(() => {
  root = tempRoot('cli-ingest');
  out = join(root, 'state');
  work = join(root, 'billing');
  makeWorkingCopy(work, pythonPackageRepo());
  maven = join(root, 'orders.git');
  const first = makeBareRepo(maven, mavenMultiModuleRepo()).commit;
  git(['--git-dir', maven, 'tag', '-a', 'v1', '-m', 'v1', first]);
  git(['--git-dir', maven, 'branch', 'release', first]);
  // A second commit on main, so `main` differs from `release` and `v1`.
  commitFiles(maven, { ...mavenMultiModuleRepo(), 'CHANGELOG.md': '# 1.1\n' }, { message: 'changelog' });
});

afterAll(() => removeRoot(root));

describe('draftsman ingest --json', () => {
  it('a working copy: READY, baseCommitSha = git rev-parse HEAD, one JSON line with the documented fields', async () => {
    const result = await cli(['ingest', work, '--out', out, '--json']);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    const json = result.json!;
    for (const key of REQUIRED) expect(json).toHaveProperty(key);
    expect(Object.keys(json).filter((k) => !REQUIRED.includes(k) && !OPTIONAL.includes(k))).toEqual([]);
    expect(json).toMatchObject({ status: 'READY', attempt: 1, baseRef: 'refs/heads/main', baseCommitSha: git(['rev-parse', 'HEAD'], { cwd: work }) });
    expect(json.runId).toMatch(/^[a-z2-7]{12}$/);
    expect(json.agentBranch).toBe(`agent/local/r${json.runId}`);
    const repoId = `billing-${createHash('sha256').update(work).digest('hex').slice(0, 8)}`;
    expect(json.runDir).toBe(join(out, 'runs', 'local', repoId, json.runId));
    expect(Object.keys(json.artifacts).sort()).toEqual(['base-ref.json', 'ingestion.json', 'policy-scan.json', 'run.json']);
    for (const path of Object.values(json.artifacts) as string[]) expect(existsSync(path)).toBe(true);
    const baseRef = JSON.parse(readFileSync(json.artifacts['base-ref.json'], 'utf8'));
    expect(baseRef.baseCommitSha).toBe(json.baseCommitSha);
    expect(result.stderr).toBe('');
  });

  it('the same command again is attempt 2 of the same run', async () => {
    const first = await cli(['ingest', work, '--out', join(root, 'state-again'), '--json']);
    const second = await cli(['ingest', work, '--out', join(root, 'state-again'), '--json']);
    expect(second.json).toMatchObject({ runId: first.json!.runId, attempt: 2, status: 'READY' });
  });

  it('a bare repository: the binary build output is a warning, not a failure', async () => {
    const result = await cli(['ingest', maven, '--out', out, '--json']);
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ status: 'READY_WITH_WARNINGS', baseCommitSha: git(['--git-dir', maven, 'rev-parse', 'main']) });
    const ingestion = JSON.parse(readFileSync(result.json!.artifacts['ingestion.json'], 'utf8'));
    expect(ingestion.warnings.map((w: { code: string }) => w.code)).toEqual(['BINARY_FILE']);
  });

  it.each([
    ['an annotated tag', 'v1', 'refs/tags/v1', 'v1^{commit}'],
    ['a branch', 'release', 'refs/heads/release', 'release'],
    ['a commit SHA', 'SHA', 'SHA', 'release'],
  ])('--ref %s pins the base to that commit', async (_what, ref, expectedRef, revision) => {
    const sha = git(['--git-dir', maven, 'rev-parse', revision]);
    expect(sha).not.toBe(git(['--git-dir', maven, 'rev-parse', 'main']));
    // A state directory per row: refs naming the same commit share a run id (source, commit, task).
    const result = await cli([
      'ingest',
      maven,
      '--out',
      join(root, `state-ref-${expectedRef.replace(/\W/g, '')}`),
      '--json',
      '--ref',
      ref === 'SHA' ? sha : ref,
    ]);
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ baseRef: expectedRef === 'SHA' ? sha : expectedRef, baseCommitSha: sha });
  });
});

describe('drills through the CLI: reason and exit code', () => {
  it('no command prints the usage and exits 2', async () => {
    const result = await cli([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^usage: draftsman <command> <repo>/);
  });

  it('a base ref that does not exist -> 1 FAILED BASE_REF_NOT_FOUND', async () => {
    const result = await cli(['ingest', maven, '--out', out, '--json', '--ref', 'no-such-branch']);
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({ status: 'FAILED', reason: 'BASE_REF_NOT_FOUND', baseRef: 'no-such-branch', baseCommitSha: null });
  });

  it.each(['dotGit', 'dotDot', 'backslash', 'caseCollision', 'symlinkEtcPasswd'] as const)('hostile tree %s -> 1 BLOCKED with its reason', async (name) => {
    const hostile = HOSTILE_TREES[name];
    const gitdir = join(root, 'hostile', `${name}.git`);
    const { commit } = makeRawTreeRepo(gitdir, hostile.entries);
    const result = await cli(['ingest', gitdir, '--out', out, '--json']);
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({ status: 'BLOCKED', reason: hostile.reason, baseRef: 'refs/heads/main', baseCommitSha: commit });
    expect(result.json!.artifacts['base-ref.json']).toBeUndefined();
  });

  it('a tree deeper than the policy allows (--policy ingestion.maxPathDepth) -> 1 BLOCKED', async () => {
    const gitdir = join(root, 'hostile', 'deep.git');
    makeRawTreeRepo(gitdir, HOSTILE_TREES.deep.entries);
    const policy = join(root, 'shallow-policy.yaml');
    writeFileSync(policy, 'version: 1\ningestion:\n  maxPathDepth: 32\n');
    const result = await cli(['ingest', gitdir, '--out', out, '--json', '--policy', policy]);
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({ status: 'BLOCKED', reason: HOSTILE_TREES.deep.reason });
    // The default policy allows 64 levels: the same tree (40 deep) is READY without it.
    expect((await cli(['ingest', gitdir, '--out', out, '--json'])).json).toMatchObject({ status: 'READY' });
  });

  it('a hostile tree without --json: the reason is on the terminal', async () => {
    const gitdir = join(root, 'hostile', 'dotGit.git');
    const result = await cli(['ingest', gitdir, '--out', out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('BLOCKED (HOSTILE_TREE_ENTRY)');
  });

  it('a submodule -> 0 READY_WITH_WARNINGS (kept opaque); a scope into it -> 1 BLOCKED SUBMODULE_IN_SCOPE; the credentials in .gitmodules are never echoed', async () => {
    const { gitdir } = makeSubmoduleRepo(join(root, 'submodule.git'));
    const result = await cli(['ingest', gitdir, '--out', out, '--json']);
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ status: 'READY_WITH_WARNINGS' });
    const scoped = await cli(['ingest', gitdir, '--out', out, '--json', '--paths', 'vendor/lib']);
    expect(scoped.code).toBe(1);
    expect(scoped.json).toMatchObject({ status: 'BLOCKED', reason: 'SUBMODULE_IN_SCOPE' });
    expect(result.stdout + result.stderr + scoped.stdout + scoped.stderr).not.toContain('secret');
  });

  it('a directory that is no repository -> 1 with the reason', async () => {
    const plain = join(root, 'plain');
    mkdirSync(plain, { recursive: true });
    const result = await cli(['ingest', plain, '--out', out, '--json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('REPOSITORY_NOT_FOUND');
  });

  it.each([
    ['an unknown command', ['frobnicate', 'REPO'], /unknown command: frobnicate/],
    ['two repositories', ['ingest', 'REPO', 'REPO'], /exactly one <repo>/],
    ['no repository', ['map'], /exactly one <repo>/],
    ['--publish with a URL', ['run', 'https://git.example.test/acme/orders.git', '--publish'], /local repositories only/],
    ['credentials in a URL', ['ingest', 'https://user:hunter2@git.example.test/acme/orders.git'], /credentials in the repository URL are refused/],
    ['an unsupported URL scheme', ['ingest', 'ftp://git.example.test/acme/orders.git'], /unsupported repository URL/],
    ['--task on ingest', ['ingest', 'REPO', '--task', 'x'], /--task is for targets and run/],
    ['--publish on map', ['map', 'REPO', '--publish'], /--publish and --approve are for run/],
    ['an unknown option', ['ingest', 'REPO', '--frob'], /^draftsman: unknown option --frob\n/],
    ['a path that is not a directory', ['ingest', '/definitely/not/here'], /not a directory/],
    ['a hostile --run-id', ['ingest', 'REPO', '--run-id', '../x'], /--run-id must be/],
  ])('usage error: %s -> 2, nothing written', async (_what, argv, message) => {
    const usageOut = join(root, 'state-usage');
    const result = await cli([...argv.map((a) => (a === 'REPO' ? work : a)), '--out', usageOut]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain('hunter2');
    expect(existsSync(usageOut)).toBe(false);
  });
});
