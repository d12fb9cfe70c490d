import { z } from 'zod';
import { putArtifactIfAbsent, readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { lockKey } from '../../core/artifacts/keys.js';
import { parseAgentBranch } from '../../core/runs/run-branch.js';
import type { AgentPolicy } from '../../core/policy/agent-policy.js';
import { decideKeepCurrent, type KeepCurrentDecision } from '../../core/runs/keep-current.js';
import { listOpenAgentRuns, type OpenAgentRun } from '../../core/runs/open-runs.js';
import { IssueLock } from '../../core/runs/run-state.js';
import { readTrustedPolicy } from '../github/read-trusted-policy.js';
import { orUndefinedOn404 } from '../publisher/publisher-context.js';
import { queueNextAttempt } from './commands/next-attempt.js';
import { readLatestRun } from './commands/latest-run.js';
import { isBotOrSelf } from './permissions.js';
import type { TriggerOutcome } from './trigger-outcome.js';
import { PushPayload } from './webhook-payloads.js';
import { WebhookSession, type TriggerDeps } from './webhook-session.js';

export { PushPayload };

/** At most this many open agent pull requests are looked at per push: one push's work is bounded. */
export const KEEP_CURRENT_MAX_RUNS = 20;

const Sha = z.string().regex(/^[0-9a-f]{40}$/);

/** The rebuild marker's body: which base head it was requested for, by what. */
const RebuildMarker = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  baseSha: Sha,
  trigger: z.enum(['push', 'command']),
  by: z.string(),
  at: z.string(),
});

export type KeepCurrentOutcome = {
  runId: string;
  decision: KeepCurrentDecision['kind'];
  outcome: TriggerOutcome | { kind: 'reported' } | { kind: 'skipped'; why: string };
};

/** The one comment per run that says its pull request is behind (edited on every later move). */
export const behindMarker = (runId: string) => `<!-- draftsman:behind:${runId} -->`;

/**
 * `push` to a branch that open agent pull requests are based on: each is kept current under its
 * run's rules (src/core/runs/keep-current.ts). Pushes to agent branches are not looked at: a
 * human's commit there is found when the next follow-up runs, and kept.
 */
export async function onBasePush(deps: TriggerDeps, payload: PushPayload): Promise<KeepCurrentOutcome[]> {
  if (payload.deleted || !payload.ref.startsWith('refs/heads/')) return [];
  const branch = payload.ref.slice('refs/heads/'.length);
  if (parseAgentBranch(branch)) return [];
  const session = new WebhookSession(deps, payload.repository, payload.installation.id);
  const runs = (await listOpenAgentRuns(deps.store, session.owner, session.repo, KEEP_CURRENT_MAX_RUNS)).filter((r) => r.record.baseBranch === branch);
  if (runs.length === 0) return [];
  const trusted = await readTrustedPolicy(await session.api(), { owner: session.owner, repo: session.repo, defaultBranch: session.defaultBranch });
  if (!trusted.ok || !trusted.policy.agent.enabled) {
    deps.logger.info('base moved under agent pull requests; the policy refuses or is disabled, so they are left as they are', {
      owner: session.owner,
      repo: session.repo,
      branch,
    });
    return [];
  }
  const sender = isBotOrSelf(payload.sender, deps.botLogin) ? deps.botLogin : payload.sender.login;
  const outcomes: KeepCurrentOutcome[] = [];
  for (const run of runs) outcomes.push(await keepCurrent(session, trusted.policy, run, { kind: 'push', baseHead: payload.after, sender }));
  return outcomes;
}

/**
 * Keep one open agent pull request current: rebuild it on the new base (a new attempt of its run,
 * once per base head), or say on the pull request that it is behind and why it is not rebuilt.
 */
export async function keepCurrent(
  session: WebhookSession,
  policy: AgentPolicy,
  run: OpenAgentRun,
  trigger: { kind: 'push' | 'command'; baseHead: string; sender: string },
): Promise<KeepCurrentOutcome> {
  const { store, clock, logger } = session.deps;
  const { record, request, keys } = run;
  const api = await session.api();
  const ref = await orUndefinedOn404(() => api.rest.git.getRef({ owner: session.owner, repo: session.repo, ref: `heads/${record.branch}` }));
  const decision = decideKeepCurrent({
    policy: policy.baseMovementPolicy,
    trigger: trigger.kind,
    builtOn: record.builtOn ?? record.baseCommitSha,
    baseHead: trigger.baseHead,
    branchHead: ref?.data.object.sha,
    lastCommit: record.publishedCommitSha,
    hasFollowUps: record.revisions.length > 0,
  });
  const result = (outcome: KeepCurrentOutcome['outcome']): KeepCurrentOutcome => ({ runId: request.runId, decision: decision.kind, outcome });
  logger.info('keep current', { runId: request.runId, prNumber: record.prNumber, decision: decision.kind, trigger: trigger.kind });
  if (decision.kind === 'up-to-date' || decision.kind === 'skip')
    return result({ kind: 'skipped', why: decision.kind === 'skip' ? decision.why : 'up to date' });
  if (decision.kind === 'report-behind') {
    await session.upsertMarkedComment(record.prNumber, behindMarker(request.runId), behindText(record.baseBranch, decision, policy.baseMovementPolicy));
    return result({ kind: 'reported' });
  }
  const issue = request.issue?.number;
  if (issue === undefined) return result({ kind: 'skipped', why: 'the run has no issue' });
  // A run at work now is not rebuilt under it: its publisher checks the base itself.
  const lock = await readArtifactIfPresent(store, lockKey(session.owner, session.repo, issue), IssueLock).catch(() => undefined);
  if (lock && Date.parse(lock.expiresAt) > clock.now()) return result({ kind: 'skipped', why: 'a run is active on the issue' });
  const found = await readLatestRun(session, issue);
  if (!found || found.latest.runId !== request.runId) return result({ kind: 'skipped', why: 'the issue has a newer run' });
  const at = new Date(clock.now()).toISOString();
  const first = await putArtifactIfAbsent(store, keys.rebuildMarker(decision.to), RebuildMarker, {
    schemaVersion: 1,
    runId: request.runId,
    baseSha: decision.to,
    trigger: trigger.kind,
    by: trigger.sender,
    at,
  });
  if (!first) return result({ kind: 'duplicate', runId: request.runId });
  const message = `\`${record.baseBranch}\` moved to ${decision.to.slice(0, 12)}; rebuilding the change on it (${trigger.kind === 'command' ? `\`rebase\` by @${trigger.sender}` : `baseMovementPolicy: ${policy.baseMovementPolicy}`})`;
  return result(
    await queueNextAttempt(session, found, issue, {
      reason: trigger.kind === 'command' ? 'rebase' : 'rerun-base-moved',
      sender: trigger.sender,
      approvedGates: [],
      message,
    }),
  );
}

function behindText(baseBranch: string, decision: Extract<KeepCurrentDecision, { kind: 'report-behind' }>, policy: AgentPolicy['baseMovementPolicy']): string {
  const head = `This pull request is behind \`${baseBranch}\`: it is built on ${decision.from.slice(0, 12)}, and \`${baseBranch}\` is now at ${decision.to.slice(0, 12)}.`;
  switch (decision.why) {
    case 'human-commits':
      return `${head}\n\nThe branch has commits draftsman did not make, so it is not rewritten. Merge \`${baseBranch}\` into it, or rebase it yourself.`;
    case 'revisions':
      return `${head}\n\nThe branch holds revisions made after review or CI; re-running the task on the new base would drop them, so it is not rebuilt. Merge \`${baseBranch}\` into it, or rebase it yourself.`;
    case 'policy':
      return `${head}\n\n\`baseMovementPolicy\` is \`${policy}\`, so it is not rebuilt on its own; comment \`/agent rebase\` to rebuild it on the new base.`;
  }
}
