import git from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { branchOwner, createAgentBranch } from '../../../src/core/git/create-agent-branch.js';
import { VirtualIndex } from '../../../src/core/git/virtual-index.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { writePolicyFor } from '../../helpers/path-rules.js';

async function setup() {
  const repo = await createMemoryRepo({ 'a.txt': 'a\n' });
  const index = await VirtualIndex.fromCommit(repo.fs, repo.gitdir, repo.commitSha);
  return { repo, index, base: { workspace: repo.workspace, index, ingestionBaseSha: repo.commitSha, policy: writePolicyFor() } };
}

describe('createAgentBranch', () => {
  it('creates the branch at the base, points HEAD at it and records the owner', async () => {
    const { repo, base } = await setup();
    const result = await createAgentBranch({ ...base, branch: 'agent/i7/rabc', runId: 'abc' });
    expect(result).toEqual({ branch: 'agent/i7/rabc', baseCommitSha: repo.commitSha, headSha: repo.commitSha, created: true });
    expect(await git.resolveRef({ fs: repo.fs, gitdir: repo.gitdir, ref: 'refs/heads/agent/i7/rabc' })).toBe(repo.commitSha);
    expect(await git.currentBranch({ fs: repo.fs, gitdir: repo.gitdir })).toBe('agent/i7/rabc');
    expect(await branchOwner(repo.fs, repo.gitdir, 'agent/i7/rabc')).toBe('abc');
  });

  it('reuses the branch for its owner run only', async () => {
    const { base } = await setup();
    await createAgentBranch({ ...base, branch: 'agent/i7/rabc', runId: 'abc' });
    expect((await createAgentBranch({ ...base, branch: 'agent/i7/rabc', runId: 'abc' })).created).toBe(false);
    await expect(createAgentBranch({ ...base, branch: 'agent/i7/rabc', runId: 'other' })).rejects.toMatchObject({ reason: 'BRANCH_OWNED_BY_OTHER_RUN' });
  });

  it('refuses a dirty workspace and a base other than the ingestion one', async () => {
    const { repo, base } = await setup();
    await expect(createAgentBranch({ ...base, ingestionBaseSha: 'f'.repeat(40), branch: 'agent/x', runId: 'abc' })).rejects.toMatchObject({
      reason: 'BASE_MISMATCH',
    });
    await repo.workspace.write('b.txt', 'new\n');
    await expect(createAgentBranch({ ...base, branch: 'agent/x', runId: 'abc' })).rejects.toMatchObject({ reason: 'WORKSPACE_NOT_CLEAN' });
  });

  it('refuses a branch name outside agent/', async () => {
    const { base } = await setup();
    await expect(createAgentBranch({ ...base, branch: 'main', runId: 'abc' })).rejects.toMatchObject({ reason: 'INVALID_BRANCH_NAME' });
  });
});
