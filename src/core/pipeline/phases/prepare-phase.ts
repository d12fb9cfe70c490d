import { z } from 'zod';
import { commitStaged } from '../../git/commit-staged.js';
import { readArtifactIfPresent } from '../../artifacts/artifact-io.js';
import type { LedgerSink } from '../../git/ledger-sink.js';
import { prText } from '../../publish/pr-text.js';
import { buildPrCandidate, writePrCandidate } from '../../git/write-pr-candidate.js';
import { stagePaths } from '../../git/stage-paths.js';
import { JudgeVerdict } from '../../git/verification-report.js';
import { VirtualIndex } from '../../git/virtual-index.js';
import type { Ledger } from '../../phases/ledger.js';
import { Checkpoint, type PhaseContext, type PhaseHandler } from '../../phases/orchestrator.js';
import { renderRunReport } from '../../phases/run-report.js';
import type { TaskContract } from '../../task/task-contract.js';
import { buildRunReport } from '../build-run-report.js';
import { discoveredMap } from '../discovered-map.js';
import { viewsFor, type PipelineEnv } from '../pipeline-env.js';
import { taskSpend } from '../model-budget.js';
import { changeOf } from './change-phase.js';
import { discoveryOf } from './discovery-phase.js';
import { taskOf } from './intake-phase.js';
import { planOf } from './planning-phase.js';
import { reviewOf } from './review-phase.js';
import { verificationOf } from './verification-phase.js';

export const PrepareOutput = z.object({
  headCommitSha: z.string(),
  headTreeSha: z.string(),
  candidateKey: z.string(),
  files: z.number().int(),
});
export type PrepareOutput = z.infer<typeof PrepareOutput>;

/** The ledger as the git boundary's audit sink. */
export function ledgerSink(ledger: Ledger, phase: 'pr_preparation'): LedgerSink {
  return {
    append: async (event) =>
      void (await ledger.append({ actor: event.actor, phase, type: event.type, payload: event.payload, evidenceRefs: event.evidenceRefs })),
  };
}

/**
 * PR preparation: stage exactly the changed paths, commit on the agent branch (built from
 * trees, dated by the attempt's createdAt), render the run report and write the candidate,
 * `pr-candidate.json` last.
 */
export function preparePhase(env: PipelineEnv, artifactsFor: () => { name: string; url: string }[]): PhaseHandler {
  return {
    name: 'pr_preparation',
    async run(context) {
      const task = taskOf(context.outputs);
      const review = reviewOf(context.outputs);
      const verification = verificationOf(context.outputs);
      const judge = JudgeVerdict.parse(context.outputs.judge);
      const discovery = discoveryOf(context.outputs);
      const ws = context.workspace;
      const sink = ledgerSink(context.ledger, 'pr_preparation');
      const { commit, title } = await commitChanges(env, context, task, sink);
      await context.runtime.use('candidate_write');
      const checkpoints = await checkpointsSoFar(env);
      const report = buildRunReport(env, task, context.outputs, checkpoints, {
        status: 'COMPLETED',
        headCommitSha: commit.commitSha,
        artifacts: artifactsFor(),
        current: 'pr_preparation',
        currentSteps: context.runtime.stepsUsed,
        ledger: context.ledger.entries(),
        map: await discoveredMap(env, discovery),
      });
      report.budget.spend = await taskSpend(env);
      // The body is written as this last phase completes.
      report.phases = (report.phases ?? []).map((p) => (p.state === 'running' ? { ...p, state: 'done' as const } : p));
      const body = renderRunReport(report);
      const { candidate, changes } = await buildPrCandidate({
        workspace: ws,
        headCommitSha: commit.commitSha,
        commitMessage: commit.message,
        title,
        body,
        baseBranch: env.baseRef.replace(/^refs\/heads\//, ''),
        headBranch: env.agentBranch,
        labels: ['draftsman'],
        reviewers: discovery.owners,
        diffSummary: review.diffSummary as never,
        verification: verification.report,
        judge,
        risk: review.risk as never,
        runId: env.request.runId,
        attempt: env.attempt,
      });
      const keys = env.keys.candidate;
      await writePrCandidate({
        store: env.store,
        keys: { candidate: keys.prCandidate, body: keys.prBody, diffSummary: keys.diffSummary, changesPrefix: keys.changesPrefix },
        candidate,
        changes,
        ledger: sink,
      });
      const output: PrepareOutput = {
        headCommitSha: commit.commitSha,
        headTreeSha: candidate.headTreeSha,
        candidateKey: keys.prCandidate,
        files: candidate.files.length,
      };
      return {
        output,
        summary: `commit ${commit.commitSha.slice(0, 12)} on ${env.agentBranch}; candidate written`,
        evidenceRefs: [keys.prCandidate, keys.prBody],
      };
    },
  };
}

/** Stage exactly the changed paths and commit them on the agent branch, dated by the attempt. */
async function commitChanges(env: PipelineEnv, context: PhaseContext, task: TaskContract, sink: ReturnType<typeof ledgerSink>) {
  const views = viewsFor(env, task);
  const review = reviewOf(context.outputs);
  const verification = verificationOf(context.outputs);
  const plan = planOf(context.outputs);
  const ws = context.workspace;
  const index = await VirtualIndex.fromCommit(ws.fs, ws.gitdir, ws.baseCommitSha);
  await context.runtime.use('git_stage');
  await stagePaths({ workspace: ws, index, paths: ws.changes().map((c) => c.path), policy: views.rules, runId: env.request.runId, ledger: sink });
  const text = pullRequestText(env, task, context);
  await context.runtime.use('git_commit');
  const commit = await commitStaged({
    workspace: ws,
    index,
    message: {
      type: text.type,
      scope: text.scope,
      breaking: text.breaking,
      summary: text.summary,
      task: taskTitle(env, task) || text.title,
      intent: plan.reason,
      request: requestOf(env.followUp),
      risk: [`${review.risk.riskLevel} (${review.risk.riskScore})`, ...review.risk.reasons.slice(0, 5)],
      runId: env.request.runId,
      attempt: { n: env.attempt, trail: env.keys.attempt(env.attempt).trailPrefix },
      taskId: env.taskId(task),
    },
    verification: verification.report,
    publishPartial: env.policy.agent.publishPartial,
    policy: views.rules,
    identity: env.identity,
    createdAt: env.createdAt,
    ledger: sink,
  });
  // A partial change (agent.publishPartial) says so before anything else a reviewer reads.
  return { commit, title: verification.report.status === 'FAILED' ? `[partial] ${text.title}` : text.title };
}

/** A revision's words, quoted in its commit: the instructions, then each inline comment with where it points. */
function requestOf(followUp: PipelineEnv['followUp']): { by: string; text: string } | undefined {
  if (followUp?.kind !== 'revise') return undefined;
  const inline = followUp.reviewComments.map((c) => `${c.path}${c.line ? `:${c.line}` : ''}: ${c.body}`);
  return { by: followUp.sender, text: [followUp.instructions.trim(), ...inline].filter((t) => t !== '').join('\n') };
}

/** The issue title (App) or the CLI task's first line: the maintainer's words. */
function taskTitle(env: PipelineEnv, task: TaskContract): string {
  return (env.request.issue?.title ?? env.request.task?.title ?? task.title).replace(/\s+/g, ' ').trim();
}

/** PR title and commit type, scope and subject, from the task, the changed files and the modules. */
function pullRequestText(env: PipelineEnv, task: TaskContract, context: PhaseContext) {
  const review = reviewOf(context.outputs);
  const plan = planOf(context.outputs);
  const change = context.outputs.mechanical_change ? changeOf(context.outputs) : undefined;
  const changedBy = new Map((change?.segments ?? []).map((s) => [s.id, s.changedFiles.map((f) => f.path)]));
  const recipeSegments = plan.segments.filter((s) => s.step);
  return prText({
    title: taskTitle(env, task),
    steps: recipeSegments.map((s) => s.step!),
    stepPaths: change ? recipeSegments.map((s) => changedBy.get(s.id) ?? []) : undefined,
    changedPaths: review.diffSummary.files.map((f) => f.path),
    modules: discoveryOf(context.outputs).modules,
    classify: viewsFor(env, task).rules.classify,
  });
}

/** Steps used by the phases checkpointed so far in this attempt (the report counts them all). */
async function checkpointsSoFar(env: PipelineEnv): Promise<Checkpoint[]> {
  const keys = (await env.store.list(env.keys.attempt(env.attempt).checkpointsPrefix)).sort();
  const out: Checkpoint[] = [];
  for (const key of keys) {
    const checkpoint = await readArtifactIfPresent(env.store, key, Checkpoint);
    if (checkpoint) out.push(checkpoint);
  }
  return out;
}
