import { PrCandidate } from '../git/pr-candidate.js';
import { agentBranchName } from '../git/branch-name.js';
import type { RunRequest } from '../runs/run-request.js';
import type { PublicationInput, PublicationTarget, StorageBinding } from './publication.js';
import { PublishError } from './publish-error.js';

/**
 * The agent branch a run may publish to, derived from what the trigger recorded: the issue and
 * the run id for GitHub runs, the run id for local runs. A GitHub request without an issue has
 * none: a branch name is never taken from the request itself.
 */
export function expectedAgentBranch(request: RunRequest): string | undefined {
  try {
    if (request.source.kind === 'github') return request.issue ? agentBranchName({ issue: request.issue.number, runId: request.runId }) : undefined;
    return agentBranchName({ runId: request.runId });
  } catch {
    return undefined;
  }
}

/** The run a storage prefix names: `runs/<owner>/<repo>/<runId>/`. */
export function storageBinding(prefix: string): StorageBinding {
  const [root, owner, repo, runId] = prefix.split('/');
  if (root !== 'runs' || !owner || !repo || !runId) throw new Error(`not a run prefix: ${prefix}`);
  return { owner, repo, runId };
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The checks that need nothing from the host: the candidate parses; the storage key, the
 * request and the candidate name one run, one repository and its agent branch; the attempt was
 * requested by a trusted writer, not superseded by a later one, and not cancelled. Returns the
 * parsed candidate and its branch, or the refusal.
 */
export function checkRun(
  input: Pick<PublicationInput, 'binding' | 'request' | 'candidate' | 'cancel' | 'attemptState'> & { targetKind: PublicationTarget['kind'] },
): PublishError | { candidate: PrCandidate; branch: string } {
  const { binding, request } = input;
  const parsed = PrCandidate.safeParse(input.candidate);
  if (!parsed.success) {
    return new PublishError('CANDIDATE_INVALID', 'pr-candidate.json is missing or fails its schema', {
      problems: parsed.error.issues.slice(0, 10).map((i) => ({ reason: 'SCHEMA', path: i.path.join('.'), message: i.message })),
    });
  }
  const candidate = parsed.data;
  if (request.runId !== binding.runId || request.owner !== binding.owner || request.repo !== binding.repo) {
    return new PublishError('BINDING_MISMATCH', 'request.json names another run or repository than its storage key', {
      key: binding,
      request: { owner: request.owner, repo: request.repo, runId: request.runId },
    });
  }
  if (input.targetKind === 'github' && request.source.kind !== 'github')
    return new PublishError('NOT_A_GITHUB_RUN', 'only GitHub runs are published to GitHub', { kind: request.source.kind });
  if (input.targetKind === 'local' && request.source.kind !== 'local')
    return new PublishError('BINDING_MISMATCH', 'only local runs are published into a local repository', { kind: request.source.kind });
  const branch = expectedAgentBranch(request);
  if (!branch || request.agentBranch !== branch) {
    return new PublishError('BINDING_MISMATCH', 'the request does not name the agent branch of its issue and run', {
      agentBranch: request.agentBranch,
      expectedBranch: branch ?? null,
      issue: request.issue?.number ?? null,
    });
  }
  if (candidate.runId !== binding.runId || candidate.headBranch !== branch) {
    return new PublishError('CANDIDATE_MISMATCH', 'the candidate does not belong to this run or its agent branch', {
      candidateRunId: candidate.runId,
      runId: binding.runId,
      candidateBranch: candidate.headBranch,
      expectedBranch: branch,
    });
  }
  if (input.cancel && input.cancel.attempt >= candidate.attempt) return new PublishError('RUN_CANCELLED', 'the run was cancelled', { by: input.cancel.by });
  if (!input.attemptState.requested)
    return new PublishError('ATTEMPT_NOT_REQUESTED', 'no trusted request exists for the candidate attempt', { attempt: candidate.attempt });
  if (input.attemptState.superseded) return new PublishError('ATTEMPT_SUPERSEDED', 'a later attempt of the run was requested', { attempt: candidate.attempt });
  return { candidate, branch };
}

/**
 * The repository being written is the one the trigger recorded: same owner and name, and on
 * GitHub the same repository id, reached by a token the recorded installation minted for that
 * repository only.
 */
export function checkTarget(request: RunRequest, target: PublicationTarget): PublishError | undefined {
  const names = { owner: target.owner, repo: target.repo, requestOwner: request.owner, requestRepo: request.repo };
  if (!same(target.owner, request.owner) || !same(target.repo, request.repo))
    return new PublishError('BINDING_MISMATCH', 'the repository written is not the one the run was triggered on', names);
  if (target.kind === 'local') return undefined;
  if (request.source.kind !== 'github') return new PublishError('NOT_A_GITHUB_RUN', 'only GitHub runs are published to GitHub', { kind: request.source.kind });
  const { repositoryId } = request.source;
  const tokenIds = [...target.tokenRepositoryIds];
  if (target.repositoryId !== repositoryId || tokenIds.length !== 1 || tokenIds[0] !== repositoryId) {
    return new PublishError('BINDING_MISMATCH', 'the repository or installation GitHub reports is not the one the run was triggered on', {
      ...names,
      repositoryId: target.repositoryId,
      requestRepositoryId: repositoryId,
      tokenRepositoryIds: tokenIds,
    });
  }
  return undefined;
}
