import git from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { commitStaged, type CommitRequest } from '../../../src/core/git/commit-staged.js';
import { createAgentBranch } from '../../../src/core/git/create-agent-branch.js';
import { diffStaged, diffUnstaged } from '../../../src/core/git/git-diff.js';
import { gitStatus } from '../../../src/core/git/git-status.js';
import type { LedgerEvent } from '../../../src/core/git/ledger-sink.js';
import { stagePaths } from '../../../src/core/git/stage-paths.js';
import { VirtualIndex } from '../../../src/core/git/virtual-index.js';
import { writePolicyFor } from '../../helpers/path-rules.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

const open = writePolicyFor();
const passed = { status: 'PASSED' as const, checks: [{ name: 'parse', status: 'PASSED' as const }], notRun: [] };
const message = { type: 'fix' as const, summary: 's', task: 't', intent: 'i', risk: [], runId: 'run1', taskId: 'digest' };

async function staged(files: Record<string, string> = { 'src/a.ts': 'export const a = 2;\n' }) {
  const repo = await createMemoryRepo({ 'src/a.ts': 'export const a = 1;\n', 'infra/x.tf': 'x\n' });
  const index = await VirtualIndex.fromCommit(repo.fs, repo.gitdir, repo.commitSha);
  await createAgentBranch({
    workspace: repo.workspace,
    index,
    branch: 'agent/local/rrun1',
    runId: 'run1',
    ingestionBaseSha: repo.commitSha,
    policy: writePolicyFor(),
  });
  for (const [p, c] of Object.entries(files)) await repo.workspace.write(p, c);
  if (Object.keys(files).length > 0) await stagePaths({ workspace: repo.workspace, index, paths: Object.keys(files), policy: open });
  const events: LedgerEvent[] = [];
  const request: CommitRequest = {
    workspace: repo.workspace,
    index,
    message,
    verification: passed,
    policy: open,
    identity: { name: 'bot', email: 'bot@example.invalid' },
    createdAt: 1_783_073_700_000,
    ledger: { append: async (e) => void events.push(e) },
  };
  return { repo, index, request, events };
}

describe('commitStaged', () => {
  it('judges a path under a symlinked directory of the base on where it lands (ci -> .github/workflows)', async () => {
    const repo = await createMemoryRepo({
      'src/a.ts': 'export const a = 1;\n',
      '.github/workflows/ci.yml': 'on: push\n',
      ci: { symlink: '.github/workflows' },
    });
    const index = await VirtualIndex.fromCommit(repo.fs, repo.gitdir, repo.commitSha);
    await createAgentBranch({
      workspace: repo.workspace,
      index,
      branch: 'agent/local/rrun1',
      runId: 'run1',
      ingestionBaseSha: repo.commitSha,
      policy: writePolicyFor(),
    });
    // Put the entry in the index directly, as a tampered or stale index would: staging refuses any path through a symlink.
    const oid = await git.writeBlob({ fs: repo.fs, gitdir: repo.gitdir, blob: new TextEncoder().encode('on: pull_request\n') });
    index.set({ path: 'ci/deploy.yml', mode: '100644', oid });
    const request: CommitRequest = {
      workspace: repo.workspace,
      index,
      message,
      verification: passed,
      policy: open,
      identity: { name: 'bot', email: 'bot@example.invalid' },
      createdAt: 1_783_073_700_000,
    };
    await expect(commitStaged(request)).rejects.toMatchObject({
      reason: 'DENIED_PATH_STAGED',
      data: { denials: [expect.objectContaining({ path: 'ci/deploy.yml', reason: 'WORKFLOW_CHANGE_NOT_PERMITTED' })] },
    });
  });

  it('commits the index as a tree on the base, moves the branch, and leaves a clean status', async () => {
    const { repo, index, request, events } = await staged();
    const result = await commitStaged(request);
    expect(result.parentSha).toBe(repo.commitSha);
    expect(result.branch).toBe('agent/local/rrun1');
    expect(result.files).toEqual([expect.objectContaining({ path: 'src/a.ts', change: 'MODIFIED' })]);
    const status = await gitStatus({ workspace: repo.workspace, index, policy: writePolicyFor() });
    expect(status).toMatchObject({ clean: true, headSha: result.commitSha, branch: 'agent/local/rrun1' });
    expect(events.map((e) => e.type)).toEqual(['git.commit.created']);
  });

  it('refuses when nothing is staged', async () => {
    const { request, events } = await staged({});
    await expect(commitStaged(request)).rejects.toMatchObject({ reason: 'NOTHING_STAGED' });
    expect(events.map((e) => e.type)).toEqual(['git.commit.refused']);
  });

  it('refuses an empty message', async () => {
    const { request } = await staged();
    await expect(commitStaged({ ...request, message: { ...message, summary: '   ' } })).rejects.toMatchObject({ reason: 'EMPTY_MESSAGE' });
  });

  it('refuses a denied path in the index (policy tightened after staging)', async () => {
    const { request } = await staged({ 'infra/x.tf': 'y\n' });
    await expect(commitStaged({ ...request, policy: writePolicyFor({ forbidden: ['infra/**'] }) })).rejects.toMatchObject({ reason: 'DENIED_PATH_STAGED' });
  });

  it('refuses when the secret scan finds something, without the secret in the error', async () => {
    const token = 'ghp' + '_' + 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5';
    const { request } = await staged({ 'src/a.ts': `export const token = "${token}";\n` });
    const error = await commitStaged(request).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'SECRET_DETECTED' });
    expect(JSON.stringify(error)).not.toContain(token);
    expect(JSON.stringify(error)).toContain('ghp_****');
  });

  it('refuses when the required verification failed', async () => {
    const { request } = await staged();
    const failed = { status: 'FAILED' as const, checks: [{ name: 'parse', status: 'FAILED' as const, detail: 'a.ts:1' }], notRun: [] };
    await expect(commitStaged({ ...request, verification: failed })).rejects.toMatchObject({ reason: 'VERIFICATION_FAILED', data: { failed: ['parse'] } });
  });

  it('says "not run" instead of claiming verification that did not happen', async () => {
    const { request } = await staged();
    const result = await commitStaged({
      ...request,
      verification: { status: 'NOT_RUN', checks: [], notRun: [{ name: 'mvn test', why: 'no build in the Lambda' }] },
    });
    expect(result.message).toContain('Verification:\n- not run: mvn test: no build in the Lambda\n');
    expect(result.message).not.toContain('passed');
  });

  it('separates staged and unstaged diffs, and a second commit is again one commit on the base', async () => {
    const { repo, index, request } = await staged();
    await repo.workspace.write('src/a.ts', 'export const a = 3;\n');
    await repo.workspace.write('src/untracked.ts', 'u\n');
    expect((await diffStaged(repo.workspace, index, { rules: defaultPathRules() })).summary.files.map((f) => f.path)).toEqual(['src/a.ts']);
    expect(new TextDecoder().decode((await diffStaged(repo.workspace, index, { rules: defaultPathRules() })).patch)).toContain('+export const a = 2;');
    const unstaged = await diffUnstaged(repo.workspace, index, { rules: defaultPathRules() });
    expect(unstaged.summary.files.map((f) => f.path)).toEqual(['src/a.ts']);
    expect(new TextDecoder().decode(unstaged.patch)).toContain('-export const a = 2;\n+export const a = 3;');
    const first = await commitStaged(request);
    await stagePaths({ workspace: repo.workspace, index, paths: ['src/a.ts', 'src/untracked.ts'], policy: open });
    const second = await commitStaged(request);
    expect(second.parentSha).toBe(repo.commitSha);
    expect(second.commitSha).not.toBe(first.commitSha);
    expect(second.files.map((f) => `${f.change}:${f.path}`)).toEqual(['MODIFIED:src/a.ts', 'ADDED:src/untracked.ts']);
    await expect(commitStaged(request)).rejects.toMatchObject({ reason: 'NOTHING_STAGED' });
  });
});
