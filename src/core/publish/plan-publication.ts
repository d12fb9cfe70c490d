import { GitBoundaryError } from '../git/git-boundary-error.js';
import type { PrCandidate } from '../git/pr-candidate.js';
import { rebuildTree, type BaseTreeFile } from '../git/rebuild-tree.js';
import { revalidateCandidate } from '../git/revalidate-candidate.js';
import { symlinkLookup } from '../paths/symlinks.js';
import { policyViews, type PolicyViews } from '../paths/policy-views.js';
import { POLICY_FILE_NAME, type AgentPolicy } from '../policy/agent-policy.js';
import { taskFromSnapshot } from '../runs/snapshot-task.js';
import type { TaskContract } from '../task/task-contract.js';
import { TaskError } from '../task/task-error.js';
import { checkApproval, outsiderOfRequest } from './check-approval.js';
import { candidateCheats } from './candidate-cheats.js';
import { changeFirings } from './change-rules.js';
import { checkRun, checkTarget } from './check-binding.js';
import type { PublicationDecision, PublicationInput, PublicationPlan, BaseState } from './publication.js';
import { PublishError } from './publish-error.js';
import { commandFailed } from '../verify/command-result.js';
import { PLAN_APPROVAL, planGateRequired } from '../runs/plan-gate.js';

const refuse = (error: PublishError): { kind: 'refuse'; error: PublishError } => ({ kind: 'refuse', error });

/**
 * Decide one publication from what the adapters gathered, trusting nothing in the candidate it
 * can re-check, and write nothing. In order: the run's binding (storage key, trigger-written
 * request, candidate, the repository as its host reports it) and cancellation; the trusted
 * policy and the task; the base; re-validation against the trusted policy (paths, budgets from
 * the blobs, blob hashes, a secret scan of the ADDED lines, branch rules); approval and risk
 * recomputed from the trusted policy; the tree rebuilt on the base (it must be `headTreeSha`);
 * base movement per `baseMovementPolicy`. The result is a refusal, a rerun, or the plan.
 */
export async function planPublication(input: PublicationInput): Promise<PublicationDecision> {
  const run = checkRun({ ...input, targetKind: input.target.kind });
  if (run instanceof PublishError) return refuse(run);
  const { candidate, branch } = run;
  const bound = checkTarget(input.request, input.target);
  if (bound) return refuse(bound);
  const trusted = trustedRules(input, candidate);
  if (trusted instanceof PublishError) return refuse(trusted);
  const { base } = input;
  if (!base.baseTreeSha)
    return refuse(new PublishError('BASE_NOT_FOUND', 'the base commit does not exist in the repository', { baseCommitSha: candidate.baseCommitSha }));
  if (base.baseFiles && !base.symlinks) {
    return refuse(
      new PublishError('REVALIDATION_FAILED', 'the base tree has more symlinks than publication resolves', {
        problems: [{ reason: 'PATH_THROUGH_SYMLINK', rule: 'PATH_THROUGH_SYMLINK', message: 'too many symlinks in the base tree' }],
      }),
    );
  }

  const readChange = async (sha: string) => input.blobs.get(sha);
  const report = await revalidateCandidate(
    candidate,
    {
      policy: trusted.views.rules,
      maxChangedFiles: trusted.views.limits.maxFiles,
      maxDiffLines: trusted.views.limits.maxLines,
      symlinks: symlinkLookup(base.symlinks ?? []),
    },
    readChange,
    async (path) => base.baseBytes.get(path),
  );
  if (!report.ok) {
    const problems = report.problems.map((p) => ({ reason: p.reason, rule: p.rule ?? p.reason, path: p.path, line: p.line, message: p.message }));
    return refuse(new PublishError('REVALIDATION_FAILED', 'the candidate fails re-validation against the trusted policy', { problems }));
  }
  const cheats = (await candidateCheats(candidate, trusted.views.rules, readChange, async (path) => base.baseBytes.get(path))).filter(
    (c) => c.severity === 'HIGH',
  );
  if (cheats.length > 0) {
    const problems = cheats.map((c) => ({ reason: 'ANTI_CHEAT', rule: c.rule, path: c.path, line: c.line, message: c.snippet }));
    return refuse(new PublishError('REVALIDATION_FAILED', 'the anti-cheat detectors find the candidate changes what verification refuses', { problems }));
  }
  // The trusted policy's change rules on what is about to be written, whatever the worker checked.
  const blobOf = new Map(candidate.files.flatMap((f) => ('deleted' in f ? [] : [[f.path, f.blobSha] as const])));
  const ruleFirings = await changeFirings(
    trusted.policy.agent.rules,
    candidate.files.map((f) => ({ path: f.path, deleted: 'deleted' in f })),
    { before: async (path) => base.baseBytes.get(path), after: async (path) => (blobOf.has(path) ? readChange(blobOf.get(path)!) : undefined) },
  );
  // A run the trusted policy (or `/agent plan`) stops at the plan gate publishes only a change held to an approved plan.
  if (planGateRequired(input.request, trusted.policy) && !input.approvedPlan) {
    return refuse(
      new PublishError('APPROVAL_REQUIRED', 'the trusted policy requires an approved plan and this run carries none', {
        problems: [{ reason: PLAN_APPROVAL, rule: PLAN_APPROVAL, message: 'no plan of this run was approved' }],
      }),
    );
  }
  const approval = checkApproval(
    candidate,
    trusted.views,
    trusted.task,
    input.approvedGates,
    outsiderOfRequest(input.request, trusted.views.policy, trusted.task),
    ruleFirings,
    input.approvedPlan?.files,
  );
  if (approval) return refuse(approval);
  let files: BaseTreeFile[] | undefined;
  if (base.baseFiles) {
    try {
      files = (await rebuildTree(base.baseFiles, candidate, readChange)).files;
    } catch (error) {
      if (!(error instanceof GitBoundaryError)) throw error;
      return refuse(
        new PublishError(
          'TREE_MISMATCH',
          'the candidate files on the base tree do not give headTreeSha',
          { detail: error.reason, ...error.data },
          { cause: error },
        ),
      );
    }
  }
  const movement = input.followUp ? branchMovement(candidate, input.followUp.onto.branch, base.branchHead) : baseMovement(candidate, trusted.policy, base);
  if (movement.kind !== 'publish') return movement;
  return { kind: 'publish', plan: buildPlan(input, candidate, branch, trusted.policy, { baseTreeSha: base.baseTreeSha, files, ...movement }) };
}

/** The trusted policy allows draft PRs, the snapshot's task is a draft PR on the base the candidate names. */
function trustedRules(input: PublicationInput, candidate: PrCandidate): PublishError | TrustedRules {
  const rules = trustedPolicyAndTask(input.request, input.trustedPolicy);
  if (rules instanceof PublishError) return rules;
  const expectedBase = (rules.task.base ?? input.request.baseRef ?? input.base.defaultBranch).replace(/^refs\/heads\//, '');
  if (candidate.baseBranch !== expectedBase) {
    return new PublishError('CANDIDATE_MISMATCH', 'the candidate targets another base branch', { candidateBase: candidate.baseBranch, expectedBase });
  }
  return rules;
}

export interface TrustedRules {
  policy: AgentPolicy;
  views: PolicyViews;
  task: TaskContract;
}

/**
 * The trusted policy (valid, allowing draft PRs) and the task parsed from the trigger-written
 * snapshot (a draft PR): what every publisher decision is made under, never the worker's copy.
 */
export function trustedPolicyAndTask(request: PublicationInput['request'], trustedPolicy: PublicationInput['trustedPolicy']): PublishError | TrustedRules {
  if (!trustedPolicy.ok) {
    return new PublishError('POLICY_REFUSED', `${POLICY_FILE_NAME} at ${trustedPolicy.ref} is invalid`, {
      policyReason: trustedPolicy.policyReason,
      ref: trustedPolicy.ref,
    });
  }
  const policy = trustedPolicy.policy;
  if (!policy.agent.enabled || !policy.agent.allowedModes.includes('draft_pr')) {
    return new PublishError('POLICY_REFUSED', 'the policy does not allow draft pull requests', {
      enabled: policy.agent.enabled,
      allowedModes: policy.agent.allowedModes,
    });
  }
  let task: TaskContract;
  try {
    task = taskFromSnapshot(request, policy.triggers.commandPrefix);
  } catch (error) {
    if (!(error instanceof TaskError)) throw error;
    return new PublishError('TASK_INVALID', 'the task block of the snapshot does not parse', { taskReason: error.reason }, { cause: error });
  }
  if (task.mode !== 'draft_pr') return new PublishError('POLICY_REFUSED', 'the task is an analysis, not a draft PR', { mode: task.mode });
  return { policy, views: policyViews(policy, task, request.paths), task };
}

/**
 * A follow-up builds on the agent branch head it ingested (the App's commit or a human's): the
 * branch must still be there, else someone pushed meanwhile and nothing is overwritten.
 */
function branchMovement(candidate: PrCandidate, branch: string, branchHead: string | undefined): Movement {
  if (branchHead === candidate.baseCommitSha) return { kind: 'publish', warnings: [] };
  return refuse(
    new PublishError('BRANCH_MOVED', `${branch} moved since the revision started; run it again on the new head`, {
      branch,
      expected: candidate.baseCommitSha,
      actual: branchHead ?? null,
    }),
  );
}

/**
 * A follow-up goes on the branch head it built on; a run that published before and whose branch
 * is still at that commit is rebuilt over it (base moved); anything else places a new branch.
 */
function placementOf(input: PublicationInput, candidate: PrCandidate): PublicationPlan['placement'] {
  if (input.followUp) return { mode: 'on-top', expectedHead: candidate.baseCommitSha };
  const previous = input.lastPublishedCommit;
  if (previous && input.base.branchHead === previous) return { mode: 'rebuild', previousHead: previous };
  return { mode: 'new-branch' };
}

type Movement = { kind: 'publish'; warnings: string[]; baseMoved?: { from: string; to: string } } | Exclude<PublicationDecision, { kind: 'publish' }>;

/** The base branch moved since the candidate was made: rerun, warn (publish on the old base), or fail. */
function baseMovement(candidate: PrCandidate, policy: AgentPolicy, base: Pick<BaseState, 'baseHead' | 'baseOnBranch'>): Movement {
  const { baseHead } = base;
  if (!baseHead) return refuse(new PublishError('BASE_NOT_FOUND', 'the base branch no longer exists', { baseBranch: candidate.baseBranch }));
  if (baseHead === candidate.baseCommitSha) return { kind: 'publish', warnings: [] };
  if (base.baseOnBranch !== true) {
    return refuse(
      new PublishError('BASE_NOT_ON_BRANCH', `the candidate's base commit is not on ${candidate.baseBranch}`, {
        baseBranch: candidate.baseBranch,
        baseCommitSha: candidate.baseCommitSha,
        baseHead,
      }),
    );
  }
  const moved = { from: candidate.baseCommitSha, to: baseHead };
  if (policy.baseMovementPolicy === 'fail') {
    return refuse(
      new PublishError('BASE_MOVED', `${candidate.baseBranch} moved since the run started and the policy says fail`, {
        baseBranch: candidate.baseBranch,
        ...moved,
      }),
    );
  }
  if (policy.baseMovementPolicy === 'rerun') return { kind: 'rerun', ...moved };
  const warning = `The base branch \`${candidate.baseBranch}\` moved from \`${moved.from.slice(0, 12)}\` to \`${moved.to.slice(0, 12)}\` after this change was prepared; it was published on the old base (policy: warn). Rebase or re-run before merging.`;
  return { kind: 'publish', warnings: [warning], baseMoved: moved };
}

function buildPlan(
  input: PublicationInput,
  candidate: PrCandidate,
  branch: string,
  policy: AgentPolicy,
  tree: { baseTreeSha: string; files?: BaseTreeFile[]; warnings: string[]; baseMoved?: { from: string; to: string } },
): PublicationPlan {
  const blobShas = [...new Set(candidate.files.flatMap((f) => ('deleted' in f ? [] : [f.blobSha])))].sort();
  const { warnings } = tree;
  const body = warnings.length > 0 ? `> [!WARNING]\n${warnings.map((w) => `> ${w}`).join('\n>\n')}\n\n${candidate.body}` : candidate.body;
  return {
    runId: input.binding.runId,
    attempt: candidate.attempt,
    owner: input.request.owner,
    repo: input.request.repo,
    blobs: blobShas.map((sha) => ({ sha, bytes: input.blobs.get(sha)! })),
    tree: {
      baseTreeSha: tree.baseTreeSha,
      changes: candidate.files.map((f) =>
        'deleted' in f ? { path: f.path, mode: '100644' as const, sha: null } : { path: f.path, mode: f.mode, sha: f.blobSha },
      ),
      files: tree.files,
    },
    expectedTreeSha: candidate.headTreeSha,
    parent: candidate.baseCommitSha,
    commit: { message: candidate.commitMessage, candidateCommitSha: candidate.headCommitSha },
    ref: { branch, name: `refs/heads/${branch}` },
    placement: placementOf(input, candidate),
    pullRequest: { base: candidate.baseBranch, title: candidate.title, body, labels: candidate.labels, reviewers: candidate.reviewers },
    warnings,
    baseMoved: tree.baseMoved,
    // Only a complete change may leave draft on its own: not partial, no failing project check.
    readyWhenCiGreen:
      policy.agent.readyForReview === 'ci-green' && candidate.verification.status === 'PASSED' && !(candidate.verification.commands ?? []).some(commandFailed),
    verification: {
      checks: candidate.verification.checks.map((c) => ({ name: c.name, status: c.status, detail: c.detail })),
      notRun: candidate.verification.notRun,
      ...(candidate.verification.commands?.length ? { commands: candidate.verification.commands } : {}),
      ...(candidate.verification.commandsRanIn ? { commandsRanIn: candidate.verification.commandsRanIn } : {}),
      ciCommands: policy.agent.build.commands,
      verifier: policy.agent.build.defaultVerifier,
    },
  };
}
