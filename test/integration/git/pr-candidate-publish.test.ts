import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFs } from '../../../src/app/local/node-fs.js';
import { commitStaged } from '../../../src/core/git/commit-staged.js';
import { createAgentBranch } from '../../../src/core/git/create-agent-branch.js';
import { diffBaseToHead } from '../../../src/core/git/git-diff.js';
import type { LedgerEvent } from '../../../src/core/git/ledger-sink.js';
import { PrCandidate } from '../../../src/core/git/pr-candidate.js';
import { rebuildTree } from '../../../src/core/git/rebuild-tree.js';
import { revalidateCandidate } from '../../../src/core/git/revalidate-candidate.js';
import { scoreRisk } from '../../../src/core/risk/risk-score.js';
import { stagePaths } from '../../../src/core/git/stage-paths.js';
import { blobSha } from '../../../src/core/objects/tree-hash.js';
import { VirtualIndex } from '../../../src/core/git/virtual-index.js';
import { writeCandidateToRepository } from '../../../src/core/git/write-candidate-to-repository.js';
import { buildPrCandidate, writePrCandidate } from '../../../src/core/git/write-pr-candidate.js';
import { writePolicyFor } from '../../helpers/path-rules.js';
import { readTreeFiles } from '../../../src/core/workspace/workspace.js';
import { RecordingArtifactStore } from '../../helpers/git-artifact-store.js';
import { copyOut, makeTempDir, nativeGit, removeDir } from '../../helpers/git-materialize.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

const policy = writePolicyFor();
const identity = { name: 'draftsman[bot]', email: 'draftsman@example.invalid' };
const createdAt = '2026-07-03T10:15:00.000Z';
const verification = { status: 'PASSED' as const, checks: [{ name: 'parse', status: 'PASSED' as const }], notRun: [] };
const prefix = 'runs/o/r/run1/candidate/';
const keys = {
  candidate: `${prefix}pr-candidate.json`,
  body: `${prefix}pr-body.md`,
  diffSummary: `${prefix}diff-summary.json`,
  changesPrefix: `${prefix}changes/`,
};
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(removeDir));

async function produce() {
  const repo = await createMemoryRepo({
    'src/a.ts': 'export const a = 1;\n',
    'src/b.ts': 'b\n',
    'docs/x.md': 'x\n',
    'bin/tool': { content: '#!/bin/sh\n', mode: '100755' },
  });
  const ws = repo.workspace;
  const index = await VirtualIndex.fromCommit(repo.fs, repo.gitdir, repo.commitSha);
  const events: LedgerEvent[] = [];
  const ledger = { append: async (e: LedgerEvent) => void events.push(e) };
  await createAgentBranch({
    workspace: ws,
    index,
    branch: 'agent/local/rrun1',
    runId: 'run1',
    ingestionBaseSha: repo.commitSha,
    policy: writePolicyFor(),
    ledger,
  });
  await ws.write('src/a.ts', 'export const a = 2;\n');
  await ws.delete('src/b.ts');
  await ws.write('src/new/c.ts', 'export const c = 3;\n');
  await stagePaths({ workspace: ws, index, paths: ['src/a.ts', 'src/b.ts', 'src/new/c.ts'], policy, ledger });
  const commit = await commitStaged({
    workspace: ws,
    index,
    message: { type: 'feat', scope: 'src', summary: 'add c', task: 'Add c', intent: 'Add c and drop b.', risk: [], runId: 'run1', taskId: 'digest' },
    verification,
    policy,
    identity,
    createdAt,
    ledger,
  });
  const diff = await diffBaseToHead(ws, { rules: defaultPathRules() });
  const { candidate, changes } = await buildPrCandidate({
    workspace: ws,
    headCommitSha: commit.commitSha,
    commitMessage: commit.message,
    title: 'feat(src): add c',
    body: '## Summary\n- add c\n',
    baseBranch: 'main',
    headBranch: 'agent/local/rrun1',
    labels: ['agent'],
    reviewers: ['@octo'],
    diffSummary: diff.summary,
    verification,
    judge: { verdict: 'ACCEPT', reasons: ['in scope'] },
    risk: scoreRisk({ files: diff.summary.files, rules: defaultPathRules() }),
    runId: 'run1',
    attempt: 1,
  });
  const store = new RecordingArtifactStore();
  await writePrCandidate({ store, keys, candidate, changes, ledger });
  return { repo, commit, candidate, store, events };
}

const reader = (store: RecordingArtifactStore) => async (sha: string) => (await store.get(`${keys.changesPrefix}${sha}`))?.body;

describe('PR candidate and publish-side helpers', () => {
  it('writes the artifacts with pr-candidate.json last, and the ledger records every transition', async () => {
    const { candidate, store, events, commit } = await produce();
    expect(store.writes[store.writes.length - 1]).toBe(keys.candidate);
    expect(store.writes).toContain(keys.body);
    expect(store.writes).toContain(keys.diffSummary);
    const stored = PrCandidate.parse(JSON.parse(new TextDecoder().decode((await store.get(keys.candidate))!.body)));
    expect(stored).toEqual(candidate);
    expect(stored.headCommitSha).toBe(commit.commitSha);
    expect(stored.files).toEqual([
      { path: 'src/a.ts', mode: '100644', blobSha: expect.any(String) },
      { path: 'src/b.ts', deleted: true },
      { path: 'src/new/c.ts', mode: '100644', blobSha: expect.any(String) },
    ]);
    expect(events.map((e) => e.type)).toEqual(['git.branch.created', 'git.staged', 'git.commit.created', 'git.candidate.written']);
  });

  it('rebuilds headTreeSha from the base tree and the candidate artifacts alone', async () => {
    const { repo, candidate, store } = await produce();
    const base = await readTreeFiles(repo.fs, repo.gitdir, repo.treeSha);
    const fresh = PrCandidate.parse(JSON.parse(new TextDecoder().decode((await store.get(keys.candidate))!.body)));
    const { treeSha } = await rebuildTree(base, fresh, reader(store));
    expect(treeSha).toBe(candidate.headTreeSha);
    const tampered = new RecordingArtifactStore();
    for (const [k, v] of store.objects) tampered.objects.set(k, k.includes('/changes/') ? new TextEncoder().encode('evil\n') : v);
    await expect(rebuildTree(base, fresh, reader(tampered))).rejects.toMatchObject({ reason: 'BLOB_MISMATCH' });
    await expect(rebuildTree(base, { ...fresh, files: fresh.files.slice(1) }, reader(store))).rejects.toMatchObject({ reason: 'TREE_MISMATCH' });
  });

  it('re-validates against trusted rules: ok as produced; refuses workflows, forbidden paths, budgets, secrets, bad branches', async () => {
    const { candidate, store } = await produce();
    const read = reader(store);
    expect(await revalidateCandidate(candidate, { policy, maxChangedFiles: 10, maxDiffLines: 100 }, read)).toMatchObject({ ok: true, problems: [] });

    const token = 'ghp' + '_' + 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5';
    const secretBytes = new TextEncoder().encode(`const t = "${token}";\n`);
    const evilSha = blobSha(secretBytes);
    const extra = new Map([[evilSha, secretBytes]]);
    const readMore = async (sha: string) => extra.get(sha) ?? (await read(sha));
    const linkBytes = new TextEncoder().encode('../../etc/passwd');
    extra.set(blobSha(linkBytes), linkBytes);
    const bad = {
      ...candidate,
      headBranch: 'main',
      files: [
        ...candidate.files,
        { path: '.github/workflows/ci.yml', mode: '100644', blobSha: evilSha },
        { path: 'secret/x.ts', mode: '100644', blobSha: evilSha },
        { path: 'src/link', mode: '120000', blobSha: blobSha(linkBytes) },
      ],
    };
    const report = await revalidateCandidate(bad, { policy: writePolicyFor({ forbidden: ['secret/**'] }), maxChangedFiles: 3 }, readMore);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => p.reason).sort()).toEqual([
      'BUDGET_EXCEEDED',
      'FORBIDDEN_PATH',
      'INVALID_BRANCH_NAME',
      'PATH_THROUGH_SYMLINK',
      'SECRET_DETECTED',
      'SECRET_DETECTED',
      'WORKFLOW_CHANGE_NOT_PERMITTED',
    ]);
    expect(JSON.stringify(report)).not.toContain(token);
    expect((await revalidateCandidate({ ...candidate, draft: false }, { policy }, read)).problems[0].reason).toBe('CANDIDATE_INVALID');
  });

  it('writes the commit and only refs/heads/<branch> into an on-disk repository; same commit is a no-op, another is refused', async () => {
    const { repo, candidate, store, commit } = await produce();
    const dir = makeTempDir();
    dirs.push(dir);
    nativeGit(dir, ['init', '-q', '-b', 'main']);
    await copyOut(repo.fs, `${repo.gitdir}/objects`, join(dir, '.git', 'objects'));
    nativeGit(dir, ['update-ref', 'refs/heads/main', repo.commitSha]);
    nativeGit(dir, ['read-tree', '--reset', '-u', 'HEAD']);
    writeFileSync(join(dir, 'untracked.txt'), 'mine\n');
    const before = {
      head: nativeGit(dir, ['symbolic-ref', 'HEAD']).toString(),
      index: nativeGit(dir, ['ls-files', '-s']).toString(),
      status: nativeGit(dir, ['status', '--porcelain']).toString(),
    };

    const gitdir = join(dir, '.git');
    const result = await writeCandidateToRepository({ fs: nodeFs, gitdir, candidate, changes: reader(store), identity, createdAt });
    expect(result).toMatchObject({ created: true, treeSha: candidate.headTreeSha, commitSha: commit.commitSha });
    expect(nativeGit(dir, ['rev-parse', 'refs/heads/agent/local/rrun1']).toString().trim()).toBe(commit.commitSha);
    expect(nativeGit(dir, ['rev-parse', 'agent/local/rrun1^{tree}']).toString().trim()).toBe(candidate.headTreeSha);
    expect(nativeGit(dir, ['rev-parse', 'agent/local/rrun1^']).toString().trim()).toBe(repo.commitSha);
    nativeGit(dir, ['fsck', '--strict', '--no-dangling']);
    expect({
      head: nativeGit(dir, ['symbolic-ref', 'HEAD']).toString(),
      index: nativeGit(dir, ['ls-files', '-s']).toString(),
      status: nativeGit(dir, ['status', '--porcelain']).toString(),
    }).toEqual(before);

    expect((await writeCandidateToRepository({ fs: nodeFs, gitdir, candidate, changes: reader(store), identity, createdAt })).created).toBe(false);
    await expect(
      writeCandidateToRepository({ fs: nodeFs, gitdir, candidate, changes: reader(store), identity, createdAt: '2026-07-04T00:00:00Z' }),
    ).rejects.toMatchObject({ reason: 'BRANCH_EXISTS_AT_OTHER_COMMIT' });
  });
});
