import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commitTree, git } from '../../fixtures/make-repo.js';
import { DEMO_POLICY } from '../../fixtures/migration-task.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { nodeFs } from '../../../src/app/local/node-fs.js';
import { localBranchMove } from '../../../src/app/local/local-publisher.js';
import { pointBranch } from '../../../src/core/git/write-candidate-to-repository.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { CLI_NOW, cli, makeWorkingCopy } from './cli-harness.js';
import { SPRING_BOOT_BUMP_TASK, springBootParentPom } from '../../fixtures/spring-boot-bump.js';

const POM = springBootParentPom();
const BUMP_TASK = SPRING_BOOT_BUMP_TASK;

const DAY_MS = 24 * 60 * 60 * 1000;

const roots: string[] = [];
afterAll(() => roots.forEach(removeRoot));

function setup(extra: string[] = []): { repo: string; base: string; argv: string[] } {
  const root = tempRoot('cli-rerun');
  roots.push(root);
  const repo = join(root, 'orders');
  const base = makeWorkingCopy(repo, { ...mavenMultiModuleRepo(), 'pom.xml': POM, '.agent-policy.yaml': DEMO_POLICY });
  const taskFile = join(root, 'task.md');
  writeFileSync(taskFile, BUMP_TASK);
  return { repo, base, argv: ['run', repo, '--task-file', taskFile, '--out', join(root, 'state'), '--json', '--publish', ...extra] };
}

function headOf(repo: string, branch: string): string {
  return git(['rev-parse', `refs/heads/${branch}`], { cwd: repo });
}

describe('draftsman run --publish again: a rerun updates its agent/local branch', () => {
  it('rerun on a later day: attempt 2 makes a new commit and moves the branch from attempt 1 commit to it', async () => {
    const { repo, base, argv } = setup();
    const first = await cli(argv);
    expect(first.json).toMatchObject({ status: 'COMPLETED', attempt: 1 });
    // Every stage the run went through, publication included, with its duration on the run's (fixed) clock.
    expect(first.json!.phases).toEqual(
      [
        'ingestion',
        'intake',
        'discovery',
        'planning',
        'baseline',
        'mechanical_change',
        'local_repair',
        'regression_verification',
        'diff_boundary_review',
        'judge',
        'pr_preparation',
        'publish',
      ].map((phase) => ({ phase, state: 'done', ms: 0 })),
    );
    const branch = first.json!.agentBranch as string;
    const old = first.json!.headCommitSha as string;
    expect(headOf(repo, branch)).toBe(old);

    const second = await cli(argv, { now: CLI_NOW + DAY_MS });
    expect(second.json).toMatchObject({ status: 'COMPLETED', attempt: 2, runId: first.json!.runId, agentBranch: branch });
    const next = second.json!.headCommitSha as string;
    expect(next).not.toBe(old);
    expect(second.json!.publish).toBe(`updated refs/heads/${branch} from ${old} to ${next}`);
    expect(second.code).toBe(0);
    expect(headOf(repo, branch)).toBe(next);
    // The new commit stands on the base, not on the old one; the old commit is still there by SHA.
    expect(git(['rev-parse', `${next}^`], { cwd: repo })).toBe(base);
    expect(git(['cat-file', '-t', old], { cwd: repo })).toBe('commit');
    expect(git(['rev-parse', 'HEAD'], { cwd: repo })).toBe(base);
  }, 120_000);

  it('rerun after the base moved (same --run-id): the branch moves to a commit on the new base', async () => {
    const { repo, base, argv } = setup(['--run-id', 'orders-bump']);
    const first = await cli(argv);
    const branch = first.json!.agentBranch as string;
    const old = first.json!.headCommitSha as string;
    expect(branch).toBe('agent/local/rorders-bump');
    writeFileSync(join(repo, 'NOTES.md'), 'a later change on main\n');
    git(['add', 'NOTES.md'], { cwd: repo });
    git(['commit', '-q', '-m', 'later change'], { cwd: repo, date: '2024-02-01T00:00:00Z' });
    const moved = git(['rev-parse', 'HEAD'], { cwd: repo });
    expect(moved).not.toBe(base);

    const second = await cli(argv, { now: CLI_NOW + DAY_MS });
    expect(second.json).toMatchObject({ status: 'COMPLETED', attempt: 2, baseCommitSha: moved });
    const next = second.json!.headCommitSha as string;
    expect(second.json!.publish).toBe(`updated refs/heads/${branch} from ${old} to ${next}`);
    expect(headOf(repo, branch)).toBe(next);
    expect(git(['rev-parse', `${next}^`], { cwd: repo })).toBe(moved);
    expect(git(['cat-file', '-t', old], { cwd: repo })).toBe('commit');
  }, 120_000);

  it('rerun after a human commit on the branch is refused (BRANCH_NOT_OURS) and the human commit stays', async () => {
    const { repo, argv } = setup();
    const first = await cli(argv);
    const branch = first.json!.agentBranch as string;
    const ours = first.json!.headCommitSha as string;
    const human = commitTree(join(repo, '.git'), git(['rev-parse', `${ours}^{tree}`], { cwd: repo }), {
      branch,
      parent: ours,
      message: 'fix the version by hand',
      date: '2026-02-03T10:00:00Z',
    });
    expect(headOf(repo, branch)).toBe(human);

    const second = await cli(argv, { now: CLI_NOW + DAY_MS });
    expect(second.json).toMatchObject({ status: 'BLOCKED', reason: 'BRANCH_NOT_OURS', runStatus: 'COMPLETED', attempt: 2 });
    expect(second.json!.publish).toMatch(/^refused: BRANCH_NOT_OURS: /);
    expect(second.code).toBe(1);
    expect(headOf(repo, branch)).toBe(human);
  }, 120_000);

  it("rerun onto a branch holding another run's commit is refused: the name alone does not make the branch ours", async () => {
    const { repo, argv } = setup();
    const other = await cli([...argv, '--run-id', 'another-run']);
    const foreign = other.json!.headCommitSha as string;
    const mine = await cli(argv);
    const branch = mine.json!.agentBranch as string;
    // Someone points this run's branch at the other run's commit (same base, same task, same bot).
    git(['update-ref', `refs/heads/${branch}`, foreign], { cwd: repo });

    const again = await cli(argv, { now: CLI_NOW + DAY_MS });
    expect(again.json).toMatchObject({ status: 'BLOCKED', reason: 'BRANCH_NOT_OURS', runStatus: 'COMPLETED', attempt: 2 });
    expect(again.json!.publish).toMatch(/^refused: BRANCH_NOT_OURS: /);
    expect(headOf(repo, branch)).toBe(foreign);
  }, 120_000);

  it('without the earlier attempt record (checkpoint unreadable) the rerun is refused: trailer and parent alone do not vouch', async () => {
    const { repo, argv } = setup();
    const first = await cli(argv);
    const branch = first.json!.agentBranch as string;
    const old = first.json!.headCommitSha as string;
    const checkpoints = join(first.json!.runDir as string, 'attempts', '1', 'checkpoints');
    const record = readdirSync(checkpoints).find((name) => name.endsWith('-pr_preparation.json'));
    expect(record).toBeDefined();
    writeFileSync(join(checkpoints, record!), '{"schemaVersion": 1, "not": "a checkpoint"}\n');

    const second = await cli(argv, { now: CLI_NOW + DAY_MS });
    expect(second.json).toMatchObject({ status: 'BLOCKED', reason: 'BRANCH_NOT_OURS', runStatus: 'COMPLETED', attempt: 2 });
    expect(second.json!.publish).toMatch(/^refused: BRANCH_NOT_OURS: /);
    expect(headOf(repo, branch)).toBe(old);
  }, 120_000);

  it('the same input twice at the same instant: attempt 2 commits the same tree under its own trailers and moves the branch to it', async () => {
    const { repo, argv } = setup();
    const first = await cli(argv);
    const second = await cli(argv);
    const branch = first.json!.agentBranch as string;
    expect(second.json).toMatchObject({ status: 'COMPLETED', attempt: 2 });
    const [one, two] = [first.json!.headCommitSha as string, second.json!.headCommitSha as string];
    expect(two).not.toBe(one);
    expect(git(['rev-parse', `${two}^{tree}`], { cwd: repo })).toBe(git(['rev-parse', `${one}^{tree}`], { cwd: repo }));
    expect(second.json!.publish).toBe(`updated refs/heads/${branch} from ${one} to ${two}`);
    expect(headOf(repo, branch)).toBe(two);
  }, 120_000);
});

describe('moving a local agent branch is a compare-and-swap', () => {
  function repoWithCommits(): { gitdir: string; base: string; earlier: string; next: string; human: string } {
    const root = tempRoot('cli-rerun-cas');
    roots.push(root);
    const repo = join(root, 'repo');
    const base = makeWorkingCopy(repo, { 'README.md': 'hello\n' });
    const gitdir = join(repo, '.git');
    const tree = git(['rev-parse', `${base}^{tree}`], { cwd: repo });
    const commit = (message: string, parent: string) => git(['commit-tree', tree, '-p', parent, '-m', message], { cwd: repo });
    return { gitdir, base, earlier: commit('attempt 1\n\nRun-id: r1', base), next: commit('attempt 2\n\nRun-id: r1', base), human: commit('by hand', base) };
  }

  it('a branch that moves between the check and the write is left where the other writer put it', async () => {
    const { gitdir, base, earlier, next, human } = repoWithCommits();
    git(['--git-dir', gitdir, 'update-ref', 'refs/heads/agent/local/rr1', earlier]);
    const move = localBranchMove({ fs: nodeFs, gitdir, runId: 'r1', earlier: new Map([[earlier, base]]), message: 'test' });
    const racing = {
      async isEarlierAttemptCommit(sha: string) {
        const ours = await move.isEarlierAttemptCommit(sha);
        git(['--git-dir', gitdir, 'update-ref', 'refs/heads/agent/local/rr1', human]);
        return ours;
      },
      swap: move.swap,
    };
    await expect(pointBranch(nodeFs, gitdir, 'agent/local/rr1', next, racing)).rejects.toMatchObject({
      reason: 'BRANCH_EXISTS_AT_OTHER_COMMIT',
      data: { existing: human, expected: earlier },
    });
    expect(git(['--git-dir', gitdir, 'rev-parse', 'refs/heads/agent/local/rr1'])).toBe(human);
  });

  it('a recorded commit the repository does not confirm (other parent, or no Run-id trailer of this run) is not ours', async () => {
    const { gitdir, base, earlier, human } = repoWithCommits();
    const asRecorded = (runId: string, recorded: Map<string, string>) => localBranchMove({ fs: nodeFs, gitdir, runId, earlier: recorded, message: 'test' });
    expect(await asRecorded('r1', new Map([[earlier, base]])).isEarlierAttemptCommit(earlier)).toBe(true);
    expect(await asRecorded('r1', new Map([[earlier, earlier]])).isEarlierAttemptCommit(earlier)).toBe(false);
    expect(await asRecorded('r2', new Map([[earlier, base]])).isEarlierAttemptCommit(earlier)).toBe(false);
    expect(await asRecorded('r1', new Map([[human, base]])).isEarlierAttemptCommit(human)).toBe(false);
    expect(await asRecorded('r1', new Map()).isEarlierAttemptCommit(earlier)).toBe(false);
  });
});
