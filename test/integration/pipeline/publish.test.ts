import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { git } from '../../fixtures/make-repo.js';
import { CLI_NOW, cli, makeWorkingCopy, type CliOutcome } from '../cli/cli-harness.js';
import { EXPECTED_CHANGED, MIGRATION_POLICY, MIGRATION_TASK, removeRoot, tempRoot } from './pipeline-harness.js';

/**
 * Issue 5's done criterion: `draftsman run --publish` on the generated Maven repository with a
 * migrate-import and a bump-dependency step (no `paths`) makes a branch whose diff is exactly the
 * files with those imports plus the manifest, whose PR body is short and structured, and nothing
 * else in the source repository changes.
 */
let root: string;
let repo: string;
let base: string;
let taskFile: string;
let out: string;
let first: CliOutcome;
let before: { head: string; status: string; index: string; refs: string };

function sourceState(): typeof before {
  return {
    head: readFileSync(join(repo, '.git', 'HEAD'), 'utf8') + git(['rev-parse', 'HEAD'], { cwd: repo }),
    status: git(['status', '--porcelain', '--untracked-files=all'], { cwd: repo }),
    index: createHash('sha256')
      .update(readFileSync(join(repo, '.git', 'index')))
      .digest('hex'),
    refs: git(['for-each-ref', '--format=%(refname) %(objectname)'], { cwd: repo }),
  };
}

beforeAll(async () => {
  root = tempRoot('publish');
  repo = join(root, 'orders');
  base = makeWorkingCopy(repo, { ...mavenMultiModuleRepo(), '.agent-policy.yaml': MIGRATION_POLICY });
  // A dirty working copy: a modified tracked file and an untracked one; neither may be touched or published.
  writeFileSync(join(repo, 'README.md'), '# Orders\n\nLocal edit, not committed.\n');
  writeFileSync(join(repo, 'notes.txt'), 'untracked\n');
  taskFile = join(root, 'task.md');
  writeFileSync(taskFile, MIGRATION_TASK);
  out = join(root, 'state');
  before = sourceState();
  first = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--json', '--publish']);
}, 60_000);

afterAll(() => removeRoot(root));

describe('draftsman run --publish on the Maven fixture', () => {
  it('completes and publishes the candidate commit to the agent branch', () => {
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ status: 'COMPLETED', attempt: 1, baseRef: 'refs/heads/main', baseCommitSha: base });
    expect(first.json!.agentBranch).toBe(`agent/local/r${first.json!.runId}`);
    expect(first.json!.publish).toBe(`published ${first.json!.headCommitSha} to refs/heads/${first.json!.agentBranch}`);
  });

  it("the branch's diff is exactly the files with javax.persistence imports and the Spring Boot manifest", () => {
    const branch = first.json!.agentBranch;
    const withImports = git(['grep', '-l', 'import javax.persistence', base, '--'], { cwd: repo })
      .split('\n')
      .map((line) => line.slice(base.length + 1));
    const withParent = git(['grep', '-l', 'spring-boot-starter-parent', base, '--', '*pom.xml'], { cwd: repo })
      .split('\n')
      .map((line) => line.slice(base.length + 1));
    expect(withParent).toEqual(['pom.xml']);
    const expected = [...withImports, ...withParent].sort();
    expect(expected).toEqual(EXPECTED_CHANGED);
    expect(
      git(['diff', '--name-only', `${base}..${branch}`], { cwd: repo })
        .split('\n')
        .sort(),
    ).toEqual(expected);
    // What changed in them: the imports and the parent version, nothing else.
    const diff = git(['diff', '-U0', `${base}..${branch}`], { cwd: repo });
    const removed = diff.split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---'));
    const added = diff.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'));
    expect(removed).toEqual([
      '-import javax.persistence.Entity;',
      '-import javax.persistence.Id;',
      '-import javax.persistence.EntityManager;',
      '-    <version>3.1.5</version>',
    ]);
    expect(added).toEqual([
      '+import jakarta.persistence.Entity;',
      '+import jakarta.persistence.Id;',
      '+import jakarta.persistence.EntityManager;',
      '+    <version>3.2.5</version>',
    ]);
  });

  it('the branch commit is the candidate commit: base as sole parent, tree = headTreeSha, dated by the attempt', () => {
    const branch = first.json!.agentBranch;
    const candidate = JSON.parse(readFileSync(first.json!.artifacts['pr-candidate.json'], 'utf8'));
    const head = git(['rev-parse', `refs/heads/${branch}`], { cwd: repo });
    expect(head).toBe(candidate.headCommitSha);
    expect(head).toBe(first.json!.headCommitSha);
    expect(git(['rev-parse', `${head}^{tree}`], { cwd: repo })).toBe(candidate.headTreeSha);
    expect(git(['rev-list', '--parents', '-n', '1', head], { cwd: repo })).toBe(`${head} ${base}`);
    expect(Number(git(['log', '-1', '--format=%ct', head], { cwd: repo })) * 1000).toBe(CLI_NOW);
    expect(git(['fsck', '--strict', '--no-dangling'], { cwd: repo })).toBe('');
  });

  it('nothing else in the source repository changed: HEAD, index, working tree, other refs', () => {
    const after = sourceState();
    expect(after.head).toBe(before.head);
    expect(after.status).toBe(before.status);
    expect(after.status).toBe(' M README.md\n?? notes.txt'.trim());
    expect(after.index).toBe(before.index);
    const newRefs = after.refs.split('\n').filter((r) => !before.refs.split('\n').includes(r));
    expect(newRefs).toEqual([`refs/heads/${first.json!.agentBranch} ${first.json!.headCommitSha}`]);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('# Orders\n\nLocal edit, not committed.\n');
  });

  it('a reviewer reads the PR body in 30 seconds: a summary table, the three files with why, verification, nothing claimed that did not run', () => {
    const body = readFileSync(first.json!.artifacts['pr-body.md'], 'utf8');
    const summary = body.slice(0, body.indexOf('### '));
    for (const row of ['**Objective**', '**Change**', '**Verification**', '**Risk**', '**Run**']) expect(summary).toContain(row);
    expect(summary).toContain('3 files (+4 / -4)');
    expect(summary).toContain(base.slice(0, 12));
    for (const path of EXPECTED_CHANGED) expect(body).toContain(`\`${path}\``);
    expect(body).toContain('./mvnw -B verify');
    expect(body).toMatch(/not run by draftsman/i);
    expect(body).not.toMatch(/tests? passed/i);
    // Short: about a screen of prose, the rest folded in <details>.
    const visible = body.replace(/<details>[\s\S]*?<\/details>/g, '');
    expect(visible.split('\n').length).toBeLessThan(80);
    expect(body.length).toBeLessThan(12_000);
  });

  it("running --publish again makes attempt 2's own commit: the same tree, its trailers naming attempt 2 and its trail; only the agent branch moves", async () => {
    const refsBefore = sourceState();
    const again = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--json', '--publish']);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ status: 'COMPLETED', attempt: 2 });
    const [previous, next] = [first.json!.headCommitSha!, again.json!.headCommitSha!];
    expect(next).not.toBe(previous);
    expect(git(['rev-parse', `${next}^{tree}`], { cwd: repo })).toBe(git(['rev-parse', `${previous}^{tree}`], { cwd: repo }));
    expect(git(['log', '-1', '--format=%B', next], { cwd: repo })).toMatch(/^Run-attempt: 2\nRun-trail: trail\/local\/[^/]+\/[^/]+\/2\/$/m);
    expect(again.json!.publish).toBe(`updated refs/heads/${first.json!.agentBranch} from ${previous} to ${next}`);
    expect({ ...sourceState(), refs: undefined }).toEqual({ ...refsBefore, refs: undefined });
  }, 30_000);

  it("a later run makes another commit (new attempt, new date): publishing moves the branch off the earlier attempt's commit, and nothing else changes", async () => {
    const refsBefore = sourceState();
    const previous = git(['rev-parse', `refs/heads/${first.json!.agentBranch}`], { cwd: repo });
    const later = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--json', '--publish'], { now: CLI_NOW + 86_400_000 });
    expect(later.json!.status).toBe('COMPLETED');
    const next = later.json!.headCommitSha!;
    expect(next).not.toBe(previous);
    expect(later.code).toBe(0);
    expect(later.json!.publish).toBe(`updated refs/heads/${first.json!.agentBranch} from ${previous} to ${next}`);
    const after = sourceState();
    // HEAD, the index and the working tree are untouched; only the agent branch moved.
    expect({ ...after, refs: undefined }).toEqual({ ...refsBefore, refs: undefined });
    expect(after.refs).toBe(refsBefore.refs.replace(`refs/heads/${first.json!.agentBranch} ${previous}`, `refs/heads/${first.json!.agentBranch} ${next}`));
  }, 30_000);
});
