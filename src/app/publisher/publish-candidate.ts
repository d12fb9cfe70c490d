import { putArtifactIfAbsent, readArtifactIfPresent, readArtifactVersioned, putArtifactIfMatch, writeArtifact } from '../../core/artifacts/artifact-io.js';
import { issueLatestKey, lockKey, type RunKeys } from '../../core/artifacts/keys.js';
import { GitBoundaryError } from '../../core/git/git-boundary-error.js';
import { agentBranchName } from '../../core/git/branch-name.js';
import { PrCandidate } from '../../core/git/pr-candidate.js';
import { rebuildTree, type BaseTreeFile } from '../../core/git/rebuild-tree.js';
import { revalidateCandidate } from '../../core/git/revalidate-candidate.js';
import { policyViews } from '../../core/pipeline/policy-views.js';
import { POLICY_FILE_NAME, type AgentPolicy } from '../../core/policy/agent-policy.js';
import { parsePolicy } from '../../core/policy/parse-policy.js';
import { PolicyError } from '../../core/policy/policy-error.js';
import type { ArtifactStore, Clock, Logger, TokenBroker } from '../../core/ports.js';
import { AttemptRequest, RunRecord, RunRequest } from '../../core/runs/run-request.js';
import { parseTask } from '../../core/task/parse-task.js';
import type { TaskContract } from '../../core/task/task-contract.js';
import { TaskError } from '../../core/task/task-error.js';
import { IssueLatest, IssueLock, CancelMarker } from '../webhook/trigger-service.js';
import type { GitHubApi } from '../github/github-api.js';
import { parseProgressPhases, renderProgressComment } from '../github/progress-comment.js';
import { PublishError } from './publish-error.js';
import { PublishRecord } from './publish-record.js';

export interface PublishDeps {
  store: ArtifactStore;
  /** Built for the `write` role only (token-write). */
  tokens: TokenBroker;
  github: (token: string) => GitHubApi;
  clock: Clock;
  logger: Logger;
}

export interface PublishOptions extends PublishDeps {
  runKeys: RunKeys;
}

export type PublishOutcome =
  | { kind: 'published'; record: PublishRecord }
  | { kind: 'already-published'; record: PublishRecord }
  | { kind: 'refused'; reason: PublishError['reason']; error: PublishError }
  | { kind: 'rerun'; attempt: number; from: string; to: string };

interface RunContext {
  request: RunRequest;
  owner: string;
  repo: string;
  api?: GitHubApi;
  attempt: number;
}

const AGENT_LABEL_WARNING = 'labels could not be added';

function statusOf(error: unknown): number | undefined {
  return (error as { status?: number })?.status;
}

async function orUndefinedOn404<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw error;
  }
}

function decodeJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

/**
 * Publish one run's PR candidate as a draft pull request with the write-role token, trusting
 * nothing in the candidate it can re-check (DESIGN §2, §9.5):
 *
 * 1. `publish.json` already there for this attempt: done, nothing is called.
 * 2. The snapshot (`request.json`) says where: repository and installation ids never come
 *    from the candidate. The candidate must name this run, its agent branch and its base.
 * 3. The trusted policy is read from the default branch head; the candidate is re-validated
 *    against it (write policy, budgets recomputed from the blobs, blob hashes, secret scan,
 *    branch rules) and its tree rebuilt locally on the base tree: TREE_MISMATCH before any write.
 * 4. Base movement per `baseMovementPolicy`: rerun (attempt n+1 is requested), warn, or fail.
 * 5. Git Data API: blobs (base64), tree on the base tree (its SHA must be `headTreeSha`),
 *    commit with the base as sole parent and no author/committer (GitHub signs it), ref
 *    created or reused only when it points at our tree on our base, draft PR found or opened.
 * 6. Progress comment, `publish.json`, `run.json`, lock released.
 *
 * Each step is idempotent, so a publisher killed anywhere and invoked again ends with one
 * branch and one PR. Refusals write nothing to the repository, and are recorded in `run.json`
 * and the progress comment; the lock is released.
 */
export async function publishCandidate(options: PublishOptions): Promise<PublishOutcome> {
  const { store, runKeys: keys, logger } = options;
  const rawCandidate = await store.get(keys.candidate.prCandidate);
  const request = await readArtifactIfPresent(store, keys.request, RunRequest);
  if (!request) throw new PublishError('CANDIDATE_INVALID', 'the run has no request.json', { key: keys.request });
  const ctx: RunContext = { request, owner: request.owner, repo: request.repo, attempt: 1 };
  const parsed = PrCandidate.safeParse(rawCandidate ? decodeJson(rawCandidate.body) : undefined);
  if (!parsed.success) {
    return refuse(options, ctx, new PublishError('CANDIDATE_INVALID', 'pr-candidate.json is missing or fails its schema', { issues: parsed.error.issues.slice(0, 10).map((i) => `${i.path.join('.')}: ${i.message}`) }));
  }
  const candidate = parsed.data;
  ctx.attempt = candidate.attempt;

  const existing = await readArtifactIfPresent(store, keys.publish, PublishRecord);
  if (existing && existing.attempt >= candidate.attempt) {
    logger.info('candidate already published', { runId: request.runId, attempt: candidate.attempt, prNumber: existing.prNumber });
    return { kind: 'already-published', record: existing };
  }

  if (request.source.kind !== 'github') return refuse(options, ctx, new PublishError('NOT_A_GITHUB_RUN', 'only GitHub runs are published by the publisher', { kind: request.source.kind }));
  const expectedBranch = agentBranchName({ runId: request.runId, issue: request.issue?.number });
  if (candidate.runId !== request.runId || candidate.headBranch !== request.agentBranch || request.agentBranch !== expectedBranch) {
    return refuse(
      options,
      ctx,
      new PublishError('CANDIDATE_MISMATCH', 'the candidate does not belong to this run or its agent branch', {
        candidateRunId: candidate.runId,
        runId: request.runId,
        candidateBranch: candidate.headBranch,
        agentBranch: request.agentBranch,
        expectedBranch,
      }),
    );
  }
  const cancel = await readArtifactIfPresent(store, keys.cancel, CancelMarker);
  if (cancel && cancel.attempt >= candidate.attempt) return refuse(options, ctx, new PublishError('RUN_CANCELLED', 'the run was cancelled', { by: cancel.by }));

  const issued = await options.tokens.token({ installationId: request.source.installationId, repositoryId: request.source.repositoryId, role: 'write' });
  const api = options.github(issued.token);
  ctx.api = api;
  const { owner, repo } = ctx;

  // The trusted policy: the default branch's head, never the agent branch, a fork or a PR head.
  const repository = await api.rest.repos.get({ owner, repo });
  const defaultBranch = repository.data.default_branch;
  const defaultHead = (await api.rest.repos.getBranch({ owner, repo, branch: defaultBranch })).data.commit.sha;
  const policyText = await orUndefinedOn404(async () => {
    const res = await api.rest.repos.getContent({ owner, repo, path: POLICY_FILE_NAME, ref: defaultHead });
    const data = res.data as { content?: string; encoding?: string; type?: string };
    return data.type === 'file' && typeof data.content === 'string' ? Buffer.from(data.content, 'base64') : undefined;
  });
  let policy: AgentPolicy;
  try {
    policy = parsePolicy({ text: policyText, file: POLICY_FILE_NAME });
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    return refuse(options, ctx, new PublishError('POLICY_REFUSED', `${POLICY_FILE_NAME} on ${defaultBranch} is invalid`, { policyReason: error.reason, defaultHead }, { cause: error }));
  }
  if (!policy.agent.enabled || !policy.agent.allowedModes.includes('draft_pr')) {
    return refuse(options, ctx, new PublishError('POLICY_REFUSED', 'the policy does not allow draft pull requests', { enabled: policy.agent.enabled, allowedModes: policy.agent.allowedModes }));
  }
  let task: TaskContract;
  try {
    const text = request.issue ?? request.task ?? { title: '', body: '' };
    task = parseTask({ title: text.title, body: text.body, comment: request.comment?.body, forcedMode: request.forcedMode, source: 'github', commandPrefix: policy.triggers.commandPrefix });
  } catch (error) {
    if (!(error instanceof TaskError)) throw error;
    return refuse(options, ctx, new PublishError('TASK_INVALID', 'the task block of the snapshot does not parse', { taskReason: error.reason }, { cause: error }));
  }
  if (task.mode !== 'draft_pr') return refuse(options, ctx, new PublishError('POLICY_REFUSED', 'the task is an analysis, not a draft PR', { mode: task.mode }));
  const expectedBase = (task.base ?? request.baseRef ?? defaultBranch).replace(/^refs\/heads\//, '');
  if (candidate.baseBranch !== expectedBase) {
    return refuse(options, ctx, new PublishError('CANDIDATE_MISMATCH', 'the candidate targets another base branch', { candidateBase: candidate.baseBranch, expectedBase }));
  }

  // The base as GitHub has it: the base commit's tree, listed once for the local rebuild.
  const baseCommit = await orUndefinedOn404(() => api.rest.git.getCommit({ owner, repo, commit_sha: candidate.baseCommitSha }));
  if (!baseCommit) return refuse(options, ctx, new PublishError('BASE_NOT_FOUND', 'the base commit does not exist in the repository', { baseCommitSha: candidate.baseCommitSha }));
  const baseTreeSha = baseCommit.data.tree.sha;
  const listing = await api.rest.git.getTree({ owner, repo, tree_sha: baseTreeSha, recursive: 'true' });
  const baseFiles = new Map<string, BaseTreeFile>();
  for (const e of listing.data.tree) {
    if (e.type === 'tree' || !e.path || !e.sha || !e.mode) continue;
    baseFiles.set(e.path, { path: e.path, mode: e.mode, oid: e.sha });
  }

  const changes = new Map<string, Uint8Array | undefined>();
  const readChange = async (sha: string): Promise<Uint8Array | undefined> => {
    if (!changes.has(sha)) changes.set(sha, /^[0-9a-f]{40}$/.test(sha) ? (await store.get(keys.candidate.change(sha)))?.body : undefined);
    return changes.get(sha);
  };
  const readBase = async (path: string): Promise<Uint8Array | undefined> => {
    const file = baseFiles.get(path);
    if (!file || file.mode === '160000') return undefined;
    const blob = await api.rest.git.getBlob({ owner, repo, file_sha: file.oid });
    return Buffer.from(blob.data.content, 'base64');
  };
  const views = policyViews(policy, task);
  const report = await revalidateCandidate(candidate, { policy: views.write, maxChangedFiles: views.limits.maxFiles, maxDiffLines: views.limits.maxLines }, readChange, readBase);
  if (!report.ok) {
    return refuse(
      options,
      ctx,
      new PublishError('REVALIDATION_FAILED', 'the candidate fails re-validation against the trusted policy', {
        problems: report.problems.map((p) => ({ reason: p.reason, path: p.path, message: p.message })),
      }),
    );
  }
  if (listing.data.truncated) {
    logger.warn('base tree listing truncated; relying on the tree SHA GitHub returns', { runId: request.runId, baseTreeSha });
  } else {
    try {
      await rebuildTree(baseFiles.values(), candidate, readChange);
    } catch (error) {
      if (!(error instanceof GitBoundaryError)) throw error;
      return refuse(options, ctx, new PublishError('TREE_MISMATCH', 'the candidate files on the base tree do not give headTreeSha', { detail: error.reason, ...error.data }, { cause: error }));
    }
  }

  // Base movement (DESIGN §5.9).
  const baseHead = candidate.baseBranch === defaultBranch ? defaultHead : (await orUndefinedOn404(() => api.rest.repos.getBranch({ owner, repo, branch: candidate.baseBranch })))?.data.commit.sha;
  if (!baseHead) return refuse(options, ctx, new PublishError('BASE_NOT_FOUND', 'the base branch no longer exists', { baseBranch: candidate.baseBranch }));
  const warnings: string[] = [];
  let baseMoved: { from: string; to: string } | undefined;
  if (baseHead !== candidate.baseCommitSha) {
    baseMoved = { from: candidate.baseCommitSha, to: baseHead };
    if (policy.baseMovementPolicy === 'fail') {
      return refuse(options, ctx, new PublishError('BASE_MOVED', `${candidate.baseBranch} moved since the run started and the policy says fail`, { baseBranch: candidate.baseBranch, ...baseMoved }));
    }
    if (policy.baseMovementPolicy === 'rerun') return rerun(options, ctx, candidate.attempt, baseMoved);
    warnings.push(`The base branch \`${candidate.baseBranch}\` moved from \`${baseMoved.from.slice(0, 12)}\` to \`${baseMoved.to.slice(0, 12)}\` after this change was prepared; it was published on the old base (policy: warn). Rebase or re-run before merging.`);
  }

  // Git Data API. Blobs and trees are content-addressed, so repeating them is harmless.
  const blobShas = [...new Set(candidate.files.flatMap((f) => ('blobSha' in f ? [f.blobSha] : [])))].sort();
  for (const sha of blobShas) {
    const bytes = (await readChange(sha))!;
    const created = await api.rest.git.createBlob({ owner, repo, content: Buffer.from(bytes).toString('base64'), encoding: 'base64' });
    if (created.data.sha !== sha) return refuse(options, ctx, new PublishError('OBJECT_MISMATCH', 'GitHub stored a blob under another SHA', { expected: sha, actual: created.data.sha }));
  }
  const tree = await api.rest.git.createTree({
    owner,
    repo,
    base_tree: baseTreeSha,
    tree: candidate.files.map((f) =>
      'deleted' in f ? { path: f.path, mode: '100644' as const, type: 'blob' as const, sha: null } : { path: f.path, mode: f.mode, type: 'blob' as const, sha: f.blobSha },
    ),
  });
  if (tree.data.sha !== candidate.headTreeSha) {
    return refuse(options, ctx, new PublishError('TREE_MISMATCH', 'the tree GitHub built is not the candidate head tree', { expected: candidate.headTreeSha, actual: tree.data.sha }));
  }

  const branch = candidate.headBranch;
  const head = await placeBranch(options, ctx, { branch, treeSha: candidate.headTreeSha, baseSha: candidate.baseCommitSha, message: candidate.commitMessage });
  if (head instanceof PublishError) return refuse(options, ctx, head);

  const body = warnings.length > 0 ? `> [!WARNING]\n${warnings.map((w) => `> ${w}`).join('\n>\n')}\n\n${candidate.body}` : candidate.body;
  const pull = await openDraftPullRequest(options, ctx, { branch, base: candidate.baseBranch, title: candidate.title, body });
  const labelWarning = await addLabels(options, ctx, pull.number, candidate.labels);
  if (labelWarning) warnings.push(labelWarning);
  await requestReviewers(options, ctx, pull.number, candidate.reviewers);

  const now = new Date(options.clock.now()).toISOString();
  const record: PublishRecord = PublishRecord.parse({
    schemaVersion: 1,
    runId: request.runId,
    attempt: candidate.attempt,
    owner,
    repo,
    publishedCommitSha: head,
    treeSha: candidate.headTreeSha,
    baseCommitSha: candidate.baseCommitSha,
    prNumber: pull.number,
    prUrl: pull.url,
    branch,
    baseBranch: candidate.baseBranch,
    baseMoved,
    warnings,
    verification: {
      checks: candidate.verification.checks.map((c) => ({ name: c.name, status: c.status, detail: c.detail })),
      notRun: candidate.verification.notRun,
      ciCommands: policy.agent.build.commands,
      verifier: policy.agent.build.defaultVerifier,
    },
    publishedAt: now,
  });
  await updateProgress(options, ctx, { status: 'PUBLISHED', message: warnings.length > 0 ? `draft pull request opened, with ${warnings.length} warning(s)` : 'draft pull request opened', pullRequestUrl: pull.url, baseCommitSha: candidate.baseCommitSha });
  await putArtifactIfAbsent(store, keys.publish, PublishRecord, record);
  await updateRun(options, ctx, (run) => ({
    ...run,
    status: 'PUBLISHED',
    reason: undefined,
    attempt: Math.max(run.attempt, candidate.attempt),
    baseCommitSha: candidate.baseCommitSha,
    headCommitSha: head,
    headTreeSha: candidate.headTreeSha,
    pullRequest: { number: pull.number, url: pull.url },
  }));
  await releaseLock(options, ctx);
  logger.info('draft pull request published', { runId: request.runId, attempt: candidate.attempt, prNumber: pull.number, commit: head, warnings: warnings.length });
  return { kind: 'published', record };
}

/**
 * Point `refs/heads/<branch>` at a commit of our tree on our base, and return that commit.
 * An existing ref at such a commit is reused (a re-invocation after a crash); an existing ref
 * at an earlier attempt's commit of this run is moved; anything else is a human's and refused.
 */
async function placeBranch(
  options: PublishOptions,
  ctx: RunContext,
  want: { branch: string; treeSha: string; baseSha: string; message: string },
): Promise<string | PublishError> {
  const api = ctx.api!;
  const { owner, repo } = ctx;
  const ref = `heads/${want.branch}`;
  const inspect = async (): Promise<{ sha: string; ours: 'same' | 'earlier' | 'foreign' } | undefined> => {
    const current = await orUndefinedOn404(() => api.rest.git.getRef({ owner, repo, ref }));
    if (!current) return undefined;
    const sha = current.data.object.sha;
    const commit = await api.rest.git.getCommit({ owner, repo, commit_sha: sha });
    const parents = commit.data.parents.map((p) => p.sha);
    const onBase = parents.length === 1;
    if (onBase && parents[0] === want.baseSha && commit.data.tree.sha === want.treeSha) return { sha, ours: 'same' };
    const runTrailer = new RegExp(`^Run-id: ${ctx.request.runId.replace(/[^A-Za-z0-9]/g, '')}$`, 'm');
    const signedByGitHub = (commit.data as { verification?: { verified?: boolean } }).verification?.verified === true;
    return { sha, ours: onBase && signedByGitHub && runTrailer.test(commit.data.message) ? 'earlier' : 'foreign' };
  };
  const makeCommit = async (): Promise<string | PublishError> => {
    // No author or committer: GitHub attributes the commit to the App and signs it.
    const created = await api.rest.git.createCommit({ owner, repo, message: want.message, tree: want.treeSha, parents: [want.baseSha] });
    const parents = created.data.parents.map((p) => p.sha);
    if (created.data.tree.sha !== want.treeSha || parents.length !== 1 || parents[0] !== want.baseSha) {
      return new PublishError('OBJECT_MISMATCH', 'GitHub returned a commit with another tree or parent', { tree: created.data.tree.sha, parents });
    }
    return created.data.sha;
  };

  let current = await inspect();
  if (current?.ours === 'same') return current.sha;
  if (current?.ours === 'foreign') return new PublishError('BRANCH_NOT_OURS', 'the agent branch has commits this run did not make', { branch: want.branch, head: current.sha });
  const commit = await makeCommit();
  if (commit instanceof PublishError) return commit;
  if (current?.ours === 'earlier') {
    await api.rest.git.updateRef({ owner, repo, ref, sha: commit, force: true });
    return commit;
  }
  try {
    await api.rest.git.createRef({ owner, repo, ref: `refs/${ref}`, sha: commit });
    return commit;
  } catch (error) {
    if (statusOf(error) !== 422) throw error;
    // Someone (another invocation) created it between our look and our write: look again.
    current = await inspect();
    if (current?.ours === 'same') return current.sha;
    return new PublishError('BRANCH_NOT_OURS', 'the agent branch appeared at a commit this run did not make', { branch: want.branch, head: current?.sha });
  }
}

/** The open PR for the head branch, found before one is created (and after a 422 race). */
async function openDraftPullRequest(
  options: PublishOptions,
  ctx: RunContext,
  want: { branch: string; base: string; title: string; body: string },
): Promise<{ number: number; url: string }> {
  const api = ctx.api!;
  const { owner, repo } = ctx;
  const find = async () => {
    const list = await api.rest.pulls.list({ owner, repo, head: `${owner}:${want.branch}`, state: 'open', per_page: 10 });
    const found = list.data.find((p) => p.head.ref === want.branch);
    return found ? { number: found.number, url: found.html_url } : undefined;
  };
  const existing = await find();
  if (existing) {
    options.logger.info('draft pull request already open', { prNumber: existing.number });
    return existing;
  }
  try {
    const created = await api.rest.pulls.create({ owner, repo, head: want.branch, base: want.base, title: want.title, body: want.body, draft: true });
    return { number: created.data.number, url: created.data.html_url };
  } catch (error) {
    if (statusOf(error) !== 422) throw error;
    const raced = await find();
    if (raced) return raced;
    throw error;
  }
}

/** Labels are a courtesy: a failure becomes a warning, never a failed publication. */
async function addLabels(options: PublishOptions, ctx: RunContext, number: number, labels: string[]): Promise<string | undefined> {
  if (labels.length === 0) return undefined;
  try {
    await ctx.api!.rest.issues.addLabels({ owner: ctx.owner, repo: ctx.repo, issue_number: number, labels });
    return undefined;
  } catch (error) {
    if (statusOf(error) === undefined || statusOf(error)! >= 500) throw error;
    options.logger.warn('labels not added', { prNumber: number, status: statusOf(error) });
    return `${AGENT_LABEL_WARNING} (${labels.join(', ')}; HTTP ${statusOf(error)})`;
  }
}

/** CODEOWNERS reviewers; GitHub answers 422 for non-collaborators, so each is asked alone after one. */
async function requestReviewers(options: PublishOptions, ctx: RunContext, number: number, reviewers: string[]): Promise<void> {
  const api = ctx.api!;
  const wanted = [...new Set(reviewers.map((r) => r.replace(/^@/, '')).filter((r) => r && !r.includes('/') && !r.endsWith('[bot]')))];
  if (wanted.length === 0) return;
  const ask = async (list: string[]) => api.rest.pulls.requestReviewers({ owner: ctx.owner, repo: ctx.repo, pull_number: number, reviewers: list });
  try {
    await ask(wanted);
  } catch (error) {
    if (statusOf(error) !== 422) throw error;
    for (const r of wanted) {
      try {
        await ask([r]);
      } catch (inner) {
        if (statusOf(inner) !== 422) throw inner;
        options.logger.info('reviewer not requested (not a collaborator)', { prNumber: number, reviewer: r });
      }
    }
  }
}

/** Base moved and the policy says rerun: request attempt n+1 on the new base and stop. */
async function rerun(options: PublishOptions, ctx: RunContext, attempt: number, moved: { from: string; to: string }): Promise<PublishOutcome> {
  const { store, runKeys: keys, clock } = options;
  const next = attempt + 1;
  const now = new Date(clock.now()).toISOString();
  const created = await putArtifactIfAbsent(store, keys.attempt(next).request, AttemptRequest, {
    schemaVersion: 1,
    runId: ctx.request.runId,
    attempt: next,
    reason: 'rerun-base-moved',
    approvedGates: [],
    createdAt: now,
  });
  if (ctx.request.issue) {
    const latestKey = issueLatestKey(ctx.owner, ctx.repo, ctx.request.issue.number);
    const latest = await readArtifactIfPresent(store, latestKey, IssueLatest);
    if (latest && latest.runId === ctx.request.runId && latest.attempt < next) await writeArtifact(store, latestKey, IssueLatest, { ...latest, attempt: next, updatedAt: now });
  }
  await updateRun(options, ctx, (run) => ({ ...run, status: 'QUEUED', reason: 'BASE_MOVED', attempt: Math.max(run.attempt, next) }));
  await updateProgress(options, ctx, { status: 'QUEUED', attempt: next, message: `the base moved from ${moved.from.slice(0, 12)} to ${moved.to.slice(0, 12)}; attempt ${next} runs on the new base` });
  options.logger.info('base moved; next attempt requested', { runId: ctx.request.runId, attempt: next, created, ...moved });
  return { kind: 'rerun', attempt: next, ...moved };
}

/** Record a refusal: run.json (BLOCKED + reason), the progress comment, and the lock released. Nothing is written to the repository. */
async function refuse(options: PublishOptions, ctx: RunContext, error: PublishError): Promise<PublishOutcome> {
  options.logger.warn('publication refused', { runId: ctx.request.runId, attempt: ctx.attempt, reason: error.reason, data: error.data });
  await updateRun(options, ctx, (run) => ({ ...run, status: 'BLOCKED', reason: error.reason }));
  const problems = Array.isArray(error.data.problems) ? (error.data.problems as { reason: string; path?: string }[]).map((p) => `${p.reason}${p.path ? ` (${p.path})` : ''}`) : [];
  await updateProgress(options, ctx, { status: 'BLOCKED', message: `not published: ${error.reason}${problems.length > 0 ? ` — ${problems.slice(0, 5).join(', ')}` : ''}` }).catch((e: unknown) => {
    options.logger.warn('progress comment not updated', { error: e });
  });
  await releaseLock(options, ctx);
  return { kind: 'refused', reason: error.reason, error };
}

async function updateProgress(
  options: PublishOptions,
  ctx: RunContext,
  progress: { status: string; message: string; attempt?: number; pullRequestUrl?: string; baseCommitSha?: string },
): Promise<void> {
  const id = ctx.request.issue?.progressCommentId;
  if (!ctx.api || id === undefined) return;
  // Keep the worker's phase checklist: the final comment still shows what each phase did.
  const sameAttempt = progress.attempt === undefined || progress.attempt === ctx.attempt;
  const phases = sameAttempt ? await ctx.api.rest.issues.getComment({ owner: ctx.owner, repo: ctx.repo, comment_id: id }).then((r) => parseProgressPhases(r.data.body ?? ''), () => []) : [];
  await ctx.api.rest.issues.updateComment({
    owner: ctx.owner,
    repo: ctx.repo,
    comment_id: id,
    body: renderProgressComment({ runId: ctx.request.runId, attempt: progress.attempt ?? ctx.attempt, status: progress.status, phases, message: progress.message, pullRequestUrl: progress.pullRequestUrl, baseCommitSha: progress.baseCommitSha }),
  });
}

/** Compare-and-swap on run.json (the webhook and the worker write it too); created when absent. */
async function updateRun(options: PublishOptions, ctx: RunContext, change: (run: RunRecord) => RunRecord): Promise<void> {
  const { store, runKeys: keys, clock } = options;
  for (let i = 0; i < 5; i++) {
    const now = new Date(clock.now()).toISOString();
    const current = await readArtifactVersioned(store, keys.run, RunRecord);
    const base: RunRecord = current?.value ?? {
      schemaVersion: 1,
      runId: ctx.request.runId,
      status: 'QUEUED',
      attempt: ctx.attempt,
      attempts: [],
      agentBranch: ctx.request.agentBranch,
      progressCommentId: ctx.request.issue?.progressCommentId,
      updatedAt: now,
    };
    const next = { ...change(base), updatedAt: now };
    if (!current) {
      if (await putArtifactIfAbsent(store, keys.run, RunRecord, next)) return;
    } else if (await putArtifactIfMatch(store, keys.run, RunRecord, next, current.etag)) return;
  }
  throw new Error('run.json kept changing under the publisher');
}

/** Delete the issue's lock when it is this run's (another run's lock is never touched). */
async function releaseLock(options: PublishOptions, ctx: RunContext): Promise<void> {
  if (!ctx.request.issue) return;
  const key = lockKey(ctx.owner, ctx.repo, ctx.request.issue.number);
  const lock = await readArtifactIfPresent(options.store, key, IssueLock).catch(() => undefined);
  if (lock && lock.runId === ctx.request.runId) await options.store.delete(key);
}
