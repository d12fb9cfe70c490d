import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { isFailingConclusion } from '../../core/runs/ci-failure.js';
import { RunRecord } from '../../core/runs/run-request.js';
import { readCiFailures } from '../github/ci-failures.js';
import { readTrustedPolicy } from '../github/read-trusted-policy.js';
import { findAgentRun } from './agent-run.js';
import { startFollowUp } from './commands/follow-up.js';
import { agentPullRequest, readChangedFiles } from './pr-triggers.js';
import type { TriggerOutcome } from './trigger-outcome.js';
import { CheckSuiteCompletedEvent } from './webhook-payloads.js';
import { WebhookSession, type TriggerDeps } from './webhook-session.js';

/** The dedupe source of a repair: one per head commit, whatever suites or redeliveries report it. */
const repairSource = (sha: string) => `repair-${sha}`;

/**
 * `check_suite.completed` with a failing conclusion on the head of an open agent PR: when the
 * trusted policy allows (`agent.ciRepair.maxAttempts` above the repairs this run had), the
 * failing checks are read with the read token and a `ci-repair` follow-up carries them. A head
 * SHA is repaired at most once (the follow-up marker is keyed by it); an older head, a passing
 * suite, a branch that is not a known run's, or an active attempt start nothing.
 */
export async function startRepairFromCheckSuite(deps: TriggerDeps, payload: unknown): Promise<TriggerOutcome> {
  const parsed = CheckSuiteCompletedEvent.safeParse(payload);
  if (!parsed.success) return { kind: 'ignored', why: 'not a completed check suite' };
  const { check_suite: suite, repository, installation } = parsed.data;
  if (!isFailingConclusion(suite.conclusion)) return { kind: 'ignored', why: 'the suite did not fail' };
  const run = await findAgentRun(deps.store, repository, suite.head_branch);
  if (!run) return { kind: 'ignored', why: 'not an agent branch of a known run' };
  const runId = run.request.runId;
  if (await deps.store.get(run.keys.followUp(repairSource(suite.head_sha)))) return { kind: 'duplicate', runId };
  const record = await readArtifactIfPresent(deps.store, run.keys.run, RunRecord);
  if (!record?.pullRequest) return { kind: 'ignored', why: 'nothing published yet' };

  const session = new WebhookSession(deps, repository, installation.id);
  const api = await session.api();
  const trusted = await readTrustedPolicy(api, { owner: session.owner, repo: session.repo, defaultBranch: session.defaultBranch });
  if (!trusted.ok || !trusted.policy.agent.enabled) return { kind: 'ignored', why: 'the policy refuses runs' };
  const allowed = trusted.policy.agent.ciRepair.maxAttempts;
  const done = (await deps.store.list(`${run.keys.prefix}control/follow-up-repair-`)).length;
  if (done >= allowed) return { kind: 'ignored', why: allowed === 0 ? 'CI repair is off' : `the run had its ${allowed} repair attempt(s)` };

  const pull = await agentPullRequest(session, record.pullRequest.number);
  if (!pull || pull.run.request.runId !== runId) return { kind: 'ignored', why: 'the pull request is not open' };
  if (pull.onto.headSha !== suite.head_sha) return { kind: 'ignored', why: 'the suite is about an older head' };
  const ciFailures = await readCiFailures(api, session.owner, session.repo, suite.head_sha);
  const outcome = await startFollowUp(
    session,
    run,
    {
      kind: 'ci-repair',
      sender: suite.app?.slug ?? 'ci',
      source: repairSource(suite.head_sha),
      // Fixed text: the checks' names and output travel in ciFailures, framed as CI output.
      instructions: 'Make the failing checks pass.',
      reviewComments: [],
      ciFailures,
      changedFiles: await readChangedFiles(session, pull.onto.pullRequest),
      onto: pull.onto,
    },
    undefined,
  );
  deps.logger.info('check suite failed on an agent pull request', { runId, headSha: suite.head_sha, suite: suite.id, outcome: outcome.kind });
  return outcome;
}
