import { maxEditableBytes } from '../../policy/agent-policy.js';
import { z } from 'zod';
import { defineLlmTool, type LlmTool } from '../../engines/llm/index.js';
import { redactSecrets } from '../../secrets/secret-scan.js';
import type { PhaseContext } from '../../phases/orchestrator.js';
import { writeDenial } from '../../paths/write-rules.js';
import type { TaskContract } from '../../task/task-contract.js';
import { normalizeRepoPath } from '../../util/repo-path.js';
import { type Segment } from '../phases/planning-phase.js';
import { viewsFor, type PipelineEnv } from '../pipeline-env.js';
import {
  MAX_REVISION_FILES,
  MAX_REVISION_STEPS,
  MAX_REVISION_TEXT,
  PLAN_REVISED,
  PlanRevisionError,
  planRevisions,
  type PlanRevision,
} from '../plan-revision.js';

export interface PlanToolsInput {
  env: PipelineEnv;
  context: PhaseContext;
  task: TaskContract;
  segment: Segment;
  /** The files the segment may change, shared with its writing tools: an accepted revision changes it in place. */
  allowed: Set<string>;
}

const RevisionArgs = z.object({
  reason: z.string().trim().min(1).max(MAX_REVISION_TEXT),
  addFiles: z.array(z.string()).max(MAX_REVISION_FILES).optional(),
  dropFiles: z.array(z.string()).max(MAX_REVISION_FILES).optional(),
  steps: z.array(z.string().max(MAX_REVISION_TEXT)).max(MAX_REVISION_STEPS).optional(),
});

/**
 * `plan_revise`: the model says, with a reason, that the plan was wrong (a file it must change
 * was not planned, a planned one is not needed). An added file must be editable under the
 * policy and the task scope, a regular file
 * within the size limit, and the files changed so far plus the added ones must stay within the
 * run's file limit. Each accepted revision is ledgered as PLAN_REVISED; a refusal throws a
 * PlanRevisionError whose reason the model is told. The scope guard still judges every write.
 */
export function planTools({ env, context, task, segment, allowed }: PlanToolsInput): LlmTool<any>[] {
  // A resumed segment replays its recorded exchanges, tools included: a revision the ledger
  // already holds for this segment is applied again, not ledgered (or counted) twice.
  let replayed = 0;
  return [
    defineLlmTool({
      name: 'plan_revise',
      description:
        `Revise the plan when the evidence shows it is wrong: add files the change must touch, drop planned files it need not touch, restate the steps. ` +
        `Give the reason; it is recorded and shown to reviewers. Added files must be editable under the repository policy and within the task scope, and the run's limit on changed files holds.`,
      args: RevisionArgs,
      run: async (args) => {
        const recorded = planRevisions(context.ledger.entries()).filter((r) => r.segment === segment.id)[replayed];
        const revision = recorded && sameRevision(recorded, args) ? reapply(recorded, allowed) : await revise({ env, context, task, segment, allowed }, args);
        replayed += 1;
        const files = revision.after.length > 0 ? revision.after.join(', ') : '(none)';
        return `plan revised (revision ${revision.revision}); the files you may change are now: ${files}`;
      },
    }),
  ];
}

function clean(text: string): string {
  return redactSecrets(text).text.slice(0, MAX_REVISION_TEXT);
}

/** Whether `args` ask for the revision the ledger recorded (a replayed call). */
function sameRevision(recorded: PlanRevision, args: z.infer<typeof RevisionArgs>): boolean {
  const asked = new Set([...(args.addFiles ?? []), ...(args.dropFiles ?? [])].map((p) => normalizeRepoPath(p)));
  return recorded.reason === clean(args.reason) && [...recorded.added, ...recorded.dropped].every((p) => asked.has(p));
}

function reapply(recorded: PlanRevision, allowed: Set<string>): PlanRevision {
  for (const p of recorded.added) allowed.add(p);
  for (const p of recorded.dropped) allowed.delete(p);
  return recorded;
}

/** Refuse (PlanRevisionError) a file the plan may not take on: not editable, not a regular file, or too large. */
async function assertAddable(p: string, env: PipelineEnv, rules: ReturnType<typeof viewsFor>['rules'], workspace: PhaseContext['workspace']): Promise<void> {
  const denial = writeDenial(p, rules);
  if (denial || !rules.isEditable(p)) {
    throw new PlanRevisionError('PATH_NOT_EDITABLE', `${p} cannot be added: ${denial?.message ?? 'the policy does not let the agent edit it'}`, {
      path: p,
      rule: denial?.reason,
    });
  }
  const entry = workspace.entry(p);
  if (!entry) return;
  if (entry.mode !== '100644' && entry.mode !== '100755')
    throw new PlanRevisionError('NOT_A_FILE', `${p} is not a regular file`, { path: p, mode: entry.mode });
  if ((await workspace.read(p)).length > maxEditableBytes(env.policy)) {
    throw new PlanRevisionError('FILE_TOO_LARGE', `${p} is over the ${env.policy.ingestion.maxFileSizeMb} MB file size limit`, { path: p });
  }
}

async function revise({ env, context, task, segment, allowed }: PlanToolsInput, args: z.infer<typeof RevisionArgs>): Promise<PlanRevision> {
  const done = planRevisions(context.ledger.entries()).length;
  const views = viewsFor(env, task);
  const workspace = context.workspace;
  const added = [...new Set((args.addFiles ?? []).map((p) => normalizeRepoPath(p)))].filter((p) => !allowed.has(p)).sort();
  const dropped = [...new Set((args.dropFiles ?? []).map((p) => normalizeRepoPath(p)))].filter((p) => allowed.has(p)).sort();
  const steps = args.steps ?? [];
  if (added.length === 0 && dropped.length === 0 && steps.length === 0) {
    throw new PlanRevisionError('EMPTY_REVISION', 'the revision changes nothing: name files to add or drop, or restate the steps', {});
  }
  for (const p of added) await assertAddable(p, env, views.rules, workspace);
  const changed = new Set(workspace.changes().map((c) => c.path));
  const stillChanged = dropped.filter((p) => changed.has(p));
  if (stillChanged.length > 0) {
    throw new PlanRevisionError('DROP_CHANGED_FILE', `already changed, so they cannot be dropped: ${stillChanged.join(', ')}`, { paths: stillChanged });
  }
  const reach = new Set([...changed, ...added]).size;
  if (reach > views.limits.maxFiles) {
    throw new PlanRevisionError(
      'FILE_LIMIT_EXCEEDED',
      `the files changed so far plus the added ones would be ${reach}, over the limit of ${views.limits.maxFiles} changed files`,
      { files: reach, limit: views.limits.maxFiles },
    );
  }
  const before = [...allowed].sort();
  for (const p of added) allowed.add(p);
  for (const p of dropped) allowed.delete(p);
  const revision: PlanRevision = {
    segment: segment.id,
    revision: done + 1,
    // Model text reaches the PR body: no secret may ride along.
    reason: clean(args.reason),
    added,
    dropped,
    steps: steps.map(clean),
    before,
    after: [...allowed].sort(),
  };
  await context.ledger.append({ actor: 'model', phase: context.phase, type: PLAN_REVISED, payload: revision });
  return revision;
}
