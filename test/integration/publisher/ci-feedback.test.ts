import { describe, expect, it } from 'vitest';
import { onPullRequestClosed, recordCheckSuite, sweepOpenAgentPullRequests } from '../../../src/app/publisher/ci-feedback.js';
import { CiEvent } from '../../../src/app/webhook/ci-event.js';
import { PublishRecord } from '../../../src/app/publisher/publish-record.js';
import { readArtifact } from '../../../src/core/artifacts/artifact-io.js';
import { RunRecord } from '../../../src/core/runs/run-request.js';
import { deliver, FULL, INSTALLATION_ID, OWNER, REPO, REPO_ID, usePublisherScenarios, writeCandidate, type Scenario } from './publisher-fixture.js';

const scenarios = usePublisherScenarios();
let seq = 0;

const repository = { id: REPO_ID, name: REPO, full_name: FULL, owner: { login: OWNER } };

/** A published run: the scenario, its PR number and head commit. */
async function published(agentPolicy: string[] = []): Promise<{ s: Scenario; record: PublishRecord }> {
  seq += 1;
  const scenario = await scenarios.start({ runId: `ci${seq}run`, issue: 80 + seq, agentPolicy });
  const s = scenario;
  await writeCandidate(s, { 'src/greet.ts': 'export const greet = () => "good day";\n' });
  const [result] = await deliver(s, s.keys.candidate.prCandidate);
  expect(result).toMatchObject({ outcome: { kind: 'published' } });
  return { s, record: await readArtifact(s.store, s.keys.publish, PublishRecord) };
}

/** A completed check suite of one run on the PR head, recorded by the webhook side: its ci/ object key. */
async function completedSuite(s: Scenario, record: PublishRecord, conclusion: 'failure' | 'success', name: string): Promise<string> {
  const suite = s.standin.addCheckSuite(FULL, { headSha: record.publishedCommitSha, headBranch: s.branch, conclusion, runs: [{ name, conclusion }] });
  const check_suite = {
    id: suite.id,
    head_branch: s.branch,
    head_sha: record.publishedCommitSha,
    status: 'completed',
    conclusion,
    app: { id: 15368, slug: 'github-actions' },
  };
  const recorded = await recordCheckSuite(s.readDeps, { action: 'completed', check_suite, repository });
  if (recorded.kind !== 'recorded') throw new Error(`the suite was not recorded: ${recorded.why}`);
  return recorded.key;
}

describe('CI feedback', () => {
  it('a check suite completing on the PR head replaces the Verification section with the real results', async () => {
    const { s, record } = await published();
    const repo = s.standin.repo(FULL);
    const bodyBefore = repo.pulls.get(record.prNumber)!.body!;
    expect(bodyBefore).toContain('CI results:** not yet known');
    const suite = s.standin.addCheckSuite(FULL, {
      headSha: record.publishedCommitSha,
      headBranch: s.branch,
      conclusion: 'failure',
      runs: [
        { name: 'build', conclusion: 'success', detailsUrl: 'https://ci.example.invalid/build/1' },
        { name: 'unit tests', conclusion: 'failure', detailsUrl: 'https://ci.example.invalid/test/1' },
      ],
    });
    s.standin.addStatus(FULL, record.publishedCommitSha, { context: 'lint', state: 'success', targetUrl: 'https://ci.example.invalid/lint/1' });

    // Webhook side, with token-read: the check suite becomes ci/<suite id>.json.
    const webhookStart = s.standin.calls.length;
    const recorded = await recordCheckSuite(s.readDeps, {
      action: 'completed',
      check_suite: {
        id: suite.id,
        head_branch: s.branch,
        head_sha: record.publishedCommitSha,
        status: 'completed',
        conclusion: 'failure',
        app: { id: 15368, slug: 'github-actions' },
      },
      repository,
    });
    expect(recorded).toEqual({ kind: 'recorded', key: s.keys.ci(suite.id), runId: s.runId });
    const webhookCalls = s.standin.calls.slice(webhookStart).filter((c) => !c.path.startsWith('/app/'));
    expect(webhookCalls.every((c) => c.tokenPermissions?.checks === 'read' && c.tokenPermissions?.contents === 'read')).toBe(true);
    const event = await readArtifact(s.store, s.keys.ci(suite.id), CiEvent);
    expect(event.snapshot).toEqual({
      state: 'mixed',
      checks: [
        { name: 'build', status: 'completed', conclusion: 'success', url: 'https://ci.example.invalid/build/1' },
        { name: 'lint', status: 'completed', conclusion: 'success', url: 'https://ci.example.invalid/lint/1' },
        { name: 'unit tests', status: 'completed', conclusion: 'failure', url: 'https://ci.example.invalid/test/1' },
      ],
    });

    // Publisher side, with token-write: the ObjectCreated of that object updates the PR body.
    const publisherStart = s.standin.calls.length;
    const [result] = await deliver(s, s.keys.ci(suite.id));
    expect(result).toMatchObject({ kind: 'ci', outcome: { kind: 'updated', prNumber: record.prNumber, state: 'mixed' } });
    const body = repo.pulls.get(record.prNumber)!.body!;
    expect(body).toContain(`**CI results** (mixed on \`${record.publishedCommitSha.slice(0, 12)}\`)`);
    expect(body).toContain('| [build](https://ci.example.invalid/build/1) | completed | success |');
    expect(body).toContain('| [unit tests](https://ci.example.invalid/test/1) | completed | failure |');
    expect(body).not.toContain('not yet known');
    expect(body.split('<!-- draftsman:verification').length).toBe(bodyBefore.split('<!-- draftsman:verification').length);
    expect(body.startsWith(bodyBefore.slice(0, bodyBefore.indexOf('## Verification')).trimEnd().split('\n')[0])).toBe(true);
    const publisherCalls = s.standin.calls.slice(publisherStart).filter((c) => !c.path.startsWith('/app/'));
    expect(publisherCalls.map((c) => `${c.method} ${c.path.replace(/^\/repos\/acme\/widgets/, '')}`)).toEqual([
      `GET /pulls/${record.prNumber}`,
      `PATCH /pulls/${record.prNumber}`,
    ]);
    expect(publisherCalls.every((c) => c.tokenPermissions?.contents === 'write' && c.tokenPermissions.checks === undefined)).toBe(true);

    // The same object delivered again changes nothing.
    const [again] = await deliver(s, s.keys.ci(suite.id));
    expect(again).toMatchObject({ outcome: { kind: 'unchanged' } });
  });

  it('with readyForReview: ci-green, the draft leaves draft through GraphQL once every check passed, and only then', async () => {
    const { s, record } = await published(['readyForReview: ci-green']);
    expect(record.readyWhenCiGreen).toBe(true);
    const pull = () => s.standin.repo(FULL).pulls.get(record.prNumber)!;
    expect(pull().draft).toBe(true);
    const [afterFailure] = await deliver(s, await completedSuite(s, record, 'failure', 'build 1'));
    expect(afterFailure).toMatchObject({ outcome: { kind: 'updated', state: 'failure' } });
    expect(pull().draft).toBe(true);
    // A second run of CI passes; the newest snapshot of the head is all green only when every check is.
    s.standin.repo(FULL).checkSuites.length = 0;
    const passing = await completedSuite(s, record, 'success', 'build 2');
    const start = s.standin.calls.length;
    const [afterSuccess] = await deliver(s, passing);
    expect(afterSuccess).toMatchObject({ outcome: { kind: 'updated', state: 'success', readyForReview: true } });
    expect(pull().draft).toBe(false);
    const graphql = s.standin.calls.slice(start).filter((c) => c.path === '/graphql');
    expect(graphql).toHaveLength(1);
    expect(graphql[0]).toMatchObject({ status: 200, tokenPermissions: expect.objectContaining({ pull_requests: 'write' }) });
    expect(s.standin.contract.violations().filter((v) => v.route === '/graphql')).toEqual([]);
  });

  it('without readyForReview in the policy, a green CI leaves the draft as it is', async () => {
    const { s, record } = await published();
    expect(record.readyWhenCiGreen).toBe(false);
    const [result] = await deliver(s, await completedSuite(s, record, 'success', 'build'));
    expect(result).toMatchObject({ outcome: { kind: 'updated', state: 'success' } });
    expect(s.standin.repo(FULL).pulls.get(record.prNumber)!.draft).toBe(true);
    expect(s.standin.calls.some((c) => c.path === '/graphql')).toBe(false);
  });

  it('ignores check suites on branches that are not a known run', async () => {
    const { s } = await published();
    const outcome = await recordCheckSuite(s.readDeps, {
      action: 'completed',
      check_suite: { id: 1, head_branch: 'feature/x', head_sha: 'a'.repeat(40), conclusion: 'success', app: { id: 1, slug: 'ci' } },
      repository,
    });
    expect(outcome.kind).toBe('ignored');
    const spoofed = await recordCheckSuite(s.readDeps, {
      action: 'completed',
      check_suite: { id: 2, head_branch: s.branch, head_sha: 'a'.repeat(40), conclusion: 'success', app: { id: 1, slug: 'ci' } },
      repository: { ...repository, id: 999 },
    });
    expect(spoofed.kind).toBe('ignored');
  });

  it('the sweeper writes a poll object only when the results changed', async () => {
    const { s, record } = await published();
    s.standin.addCheckSuite(FULL, { headSha: record.publishedCommitSha, headBranch: s.branch, runs: [{ name: 'build', status: 'in_progress' }] });
    const first = await sweepOpenAgentPullRequests(s.readDeps, [{ owner: OWNER, repo: REPO }]);
    expect(first).toEqual([s.keys.ci(`poll-${record.publishedCommitSha}`)]);
    expect((await readArtifact(s.store, first[0], CiEvent)).snapshot?.state).toBe('pending');
    expect(await sweepOpenAgentPullRequests(s.readDeps, [{ owner: OWNER, repo: REPO }])).toEqual([]);
    s.standin.repo(FULL).checkSuites[0].runs[0] = { ...s.standin.repo(FULL).checkSuites[0].runs[0], status: 'completed', conclusion: 'success' };
    expect(await sweepOpenAgentPullRequests(s.readDeps, [{ owner: OWNER, repo: REPO }])).toEqual(first);
    const [result] = await deliver(s, first[0]);
    expect(result).toMatchObject({ outcome: { kind: 'updated', state: 'success' } });
  });

  it('closing an agent PR without merging deletes its branch and updates the progress comment', async () => {
    const { s, record } = await published();
    const repo = s.standin.repo(FULL);
    repo.pulls.get(record.prNumber)!.state = 'closed';
    const outcome = await onPullRequestClosed(s.readDeps, {
      action: 'closed',
      pull_request: { number: record.prNumber, merged: false, head: { ref: s.branch, sha: record.publishedCommitSha, repo: { id: REPO_ID } } },
      repository,
    });
    expect(outcome).toMatchObject({ kind: 'recorded', key: s.keys.ci(`pr-closed-${record.prNumber}`) });
    const [result] = await deliver(s, s.keys.ci(`pr-closed-${record.prNumber}`));
    expect(result).toMatchObject({ outcome: { kind: 'closed', merged: false, branchDeleted: true } });
    expect(await repo.git.readRef(`refs/heads/${s.branch}`)).toBeUndefined();
    expect(repo.comments.get(s.progressCommentId)?.body).toContain('closed without merging');
    expect(await readArtifact(s.store, s.keys.run, RunRecord)).toMatchObject({ status: 'CLOSED' });
    expect(await sweepOpenAgentPullRequests(s.readDeps, [{ owner: OWNER, repo: REPO }])).toEqual([]);
    // The run's outcomes as metric lines: its first publication, then its pull request closed unmerged.
    const outcomes = s.logger.entries().filter((e) => e.runOutcomes !== undefined && e.runId === s.runId);
    expect(outcomes.map((e) => [e.outcome, e.repository, e.installation])).toEqual([
      ['published', FULL, String(INSTALLATION_ID)],
      ['closed', FULL, String(INSTALLATION_ID)],
    ]);
  });
});
