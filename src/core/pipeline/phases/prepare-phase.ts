import { z } from 'zod';
import { commitStaged } from '../../git/commit-staged.js';
import { MAX_SUBJECT } from '../../git/commit-message.js';
import type { LedgerSink } from '../../git/ledger-sink.js';
import { buildPrCandidate, writePrCandidate } from '../../git/write-pr-candidate.js';
import { stagePaths } from '../../git/stage-paths.js';
import { JudgeVerdict } from '../../git/verification-report.js';
import { VirtualIndex } from '../../git/virtual-index.js';
import type { Ledger } from '../../phases/ledger.js';
import type { PhaseContext, PhaseHandler } from '../../phases/orchestrator.js';
import { renderRunReport } from '../../phases/run-report.js';
import { shortenAtWord } from '../../util/shorten.js';
import type { TaskContract } from '../../task/task-contract.js';
import { buildRunReport } from '../build-run-report.js';
import { viewsFor, type PipelineEnv } from '../pipeline-env.js';
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
  return { append: async (event) => void (await ledger.append({ actor: event.actor, phase, type: event.type, payload: event.payload, evidenceRefs: event.evidenceRefs })) };
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
      const report = buildRunReport(env, task, context.outputs, [], { status: 'COMPLETED', headCommitSha: commit.commitSha, artifacts: artifactsFor(), current: 'pr_preparation' });
      // Phases recorded so far are all done when this one runs.
      report.phases = (report.phases ?? []).map((p) => ({ ...p, state: 'done' as const }));
      const body = renderRunReport(report);
      await context.runtime.use('candidate.write');
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
      const output: PrepareOutput = { headCommitSha: commit.commitSha, headTreeSha: candidate.headTreeSha, candidateKey: keys.prCandidate, files: candidate.files.length };
      return { output, summary: `commit ${commit.commitSha.slice(0, 12)} on ${env.agentBranch}; candidate written`, evidenceRefs: [keys.prCandidate, keys.prBody] };
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
  await context.runtime.use('git.stage');
  await stagePaths({ workspace: ws, index, paths: ws.changes().map((c) => c.path), policy: views.rules, runId: env.request.runId, ledger: sink });
  const title = commitTitle(env, task, plan.segments.map((s) => s.step?.recipe ?? 'model'));
  await context.runtime.use('git.commit');
  const commit = await commitStaged({
    workspace: ws,
    index,
    message: {
      type: plan.segments.some((s) => s.step?.recipe === 'bump-dependency') && plan.segments.length === 1 ? 'build' : 'refactor',
      scope: scopeOf(review.diffSummary.files.map((f) => f.path)),
      summary: title,
      task: env.request.issue?.title ?? env.request.task?.title ?? task.title ?? title,
      intent: plan.reason,
      risk: [`${review.risk.riskLevel} (${review.risk.riskScore})`, ...review.risk.reasons.slice(0, 5)],
      runId: env.request.runId,
      taskId: env.taskId(task),
    },
    verification: verification.report,
    policy: views.rules,
    identity: env.identity,
    createdAt: env.createdAt,
    ledger: sink,
  });
  return { commit, title };
}

function commitTitle(env: PipelineEnv, task: { title: string; steps: { recipe: string; from?: string; to?: string; package?: string; find?: string }[] }, _recipes: string[]): string {
  const step = task.steps[0];
  if (task.steps.length === 1 && step) {
    if (step.recipe === 'migrate-import') return `migrate imports from ${step.from} to ${step.to}`;
    if (step.recipe === 'bump-dependency') return `bump ${step.package} to ${step.to}`;
    if (step.recipe === 'rename-symbol') return `rename ${step.from} to ${step.to}`;
    if (step.recipe === 'replace') return `replace ${JSON.stringify(step.find)}`;
  }
  const title = (env.request.issue?.title ?? env.request.task?.title ?? task.title).replace(/\s+/g, ' ').trim();
  return shortenAtWord(title || `apply ${task.steps.length} step(s)`, MAX_SUBJECT);
}

/** A conventional-commit scope: the one top-level directory every changed path shares, if any. */
function scopeOf(paths: string[]): string | undefined {
  const tops = new Set(paths.map((p) => (p.includes('/') ? p.slice(0, p.indexOf('/')) : '')));
  if (tops.size !== 1) return undefined;
  const top = [...tops][0];
  return top && /^[A-Za-z0-9._-]+$/.test(top) ? top : undefined;
}
