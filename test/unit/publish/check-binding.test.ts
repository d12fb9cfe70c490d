import { describe, expect, it } from 'vitest';
import { checkRun, checkTarget, expectedAgentBranch, storageBinding } from '../../../src/core/publish/check-binding.js';
import type { PublicationTarget } from '../../../src/core/publish/publication.js';
import type { RunRequest } from '../../../src/core/runs/run-request.js';

const SHA = 'a'.repeat(40);
const request: RunRequest = {
  schemaVersion: 1,
  runId: 'run1',
  owner: 'acme',
  repo: 'widgets',
  source: { kind: 'github', repositoryId: 11, installationId: 1, cloneUrl: 'https://example.invalid/acme/widgets.git', apiUrl: 'https://example.invalid' },
  trigger: { kind: 'label', key: 'label-1', sender: 'alice' },
  issue: { number: 7, title: 'T', body: 'B', updatedAt: '2026-01-01T00:00:00.000Z', progressCommentId: 5 },
  agentBranch: 'agent/i7/rrun1',
  createdAt: '2026-01-01T00:00:00.000Z',
};
const candidate = {
  schemaVersion: 1,
  title: 't',
  body: 'b',
  baseBranch: 'main',
  headBranch: 'agent/i7/rrun1',
  baseCommitSha: SHA,
  headCommitSha: SHA,
  headTreeSha: SHA,
  commitMessage: 'm',
  files: [{ path: 'a.txt', mode: '100644', blobSha: SHA }],
  labels: [],
  reviewers: [],
  draft: true,
  diffSummary: { baseCommitSha: SHA, headSha: SHA, filesChanged: 1, insertions: 1, deletions: 0, files: [], warnings: [] },
  verification: { status: 'PASSED', checks: [], notRun: [] },
  judge: null,
  risk: { riskScore: 0, riskLevel: 'LOW', reasons: [], requiredGate: 'NONE' },
  runId: 'run1',
  attempt: 1,
};
const binding = { owner: 'acme', repo: 'widgets', runId: 'run1' };
const requested = { requested: true, superseded: false };
const github: PublicationTarget = { kind: 'github', repositoryId: 11, owner: 'acme', repo: 'widgets', tokenRepositoryIds: [11] };

describe('publication binding', () => {
  it('binds a run whose key, request, candidate and repository agree', () => {
    expect(checkRun({ binding, request, candidate, attemptState: requested, targetKind: 'github' })).toMatchObject({ branch: 'agent/i7/rrun1' });
    expect(checkTarget(request, github)).toBeUndefined();
    expect(storageBinding('runs/acme/widgets/run1/')).toEqual(binding);
  });

  it.each([
    { name: 'another repository id', target: { ...github, repositoryId: 12 } },
    { name: 'a token reaching more than the repository', target: { ...github, tokenRepositoryIds: [11, 12] } },
    { name: 'a token for another repository', target: { ...github, tokenRepositoryIds: [12] } },
    { name: 'another owner', target: { ...github, owner: 'victim' } },
    { name: 'another repository name', target: { ...github, repo: 'gadgets' } },
    { name: 'a local repository of another name', target: { kind: 'local' as const, owner: 'local', repo: 'widgets-1234abcd' } },
  ])('refuses a repository GitHub reports with $name', ({ target }) => {
    expect(checkTarget(request, target)).toMatchObject({ reason: 'BINDING_MISMATCH' });
  });

  it.each([
    { name: 'a key of another run', input: { binding: { ...binding, runId: 'run2' } }, reason: 'BINDING_MISMATCH' },
    { name: 'a key of another repository', input: { binding: { ...binding, repo: 'gadgets' } }, reason: 'BINDING_MISMATCH' },
    { name: 'a candidate of another run', input: { candidate: { ...candidate, runId: 'run2' } }, reason: 'CANDIDATE_MISMATCH' },
    { name: 'a candidate for another branch', input: { candidate: { ...candidate, headBranch: 'agent/i8/rrun1' } }, reason: 'CANDIDATE_MISMATCH' },
    {
      name: 'a request whose branch is not derived from its issue',
      input: { request: { ...request, agentBranch: 'agent/i8/rrun1' } },
      reason: 'BINDING_MISMATCH',
    },
    { name: 'a GitHub request without an issue', input: { request: { ...request, issue: undefined } }, reason: 'BINDING_MISMATCH' },
    {
      name: 'a local request on the GitHub publisher',
      input: { request: { ...request, source: { kind: 'local' as const, location: '/x' } } },
      reason: 'NOT_A_GITHUB_RUN',
    },
    { name: 'a cancelled attempt', input: { cancel: { attempt: 1, by: 'alice' } }, reason: 'RUN_CANCELLED' },
    { name: 'an attempt no trusted writer requested', input: { attemptState: { requested: false, superseded: false } }, reason: 'ATTEMPT_NOT_REQUESTED' },
    { name: 'an attempt a later one superseded', input: { attemptState: { requested: true, superseded: true } }, reason: 'ATTEMPT_SUPERSEDED' },
    { name: 'a candidate that fails its schema', input: { candidate: { ...candidate, draft: false } }, reason: 'CANDIDATE_INVALID' },
  ])('refuses $name', ({ input, reason }) => {
    expect(checkRun({ binding, request, candidate, attemptState: requested, targetKind: 'github', ...input })).toMatchObject({ reason });
  });

  it('derives the branch from the issue and run for GitHub runs, from the run for local runs, and never from a request without an issue', () => {
    expect(expectedAgentBranch(request)).toBe('agent/i7/rrun1');
    expect(expectedAgentBranch({ ...request, source: { kind: 'local', location: '/x' }, issue: undefined })).toBe('agent/local/rrun1');
    expect(expectedAgentBranch({ ...request, issue: undefined, agentBranch: 'agent/i7/rrun1' })).toBeUndefined();
  });
});
