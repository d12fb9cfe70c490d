import type { FollowUp } from '../../core/runs/follow-up.js';
import type { AttemptRequest } from '../../core/runs/run-request.js';
import { createCommentOnce, findMarkedComment } from '../github/create-once.js';
import type { GitHubApi } from '../github/github-api.js';

/** How an attempt ended, as its last progress says. */
export interface AttemptEnd {
  status: string;
  reason?: string;
  baseCommitSha?: string;
}

/** How an attempt ends when it found nothing to change (no target left, no diff), or could not follow free text without a model. */
const UNCHANGED = new Set(['NO_CHANGES', 'TARGET_SELECTION_EMPTY', 'REVISION_NEEDS_MODEL']);

/** An `agent` block a revision may carry instead of free text: recipe steps need no model. */
const BLOCK_EXAMPLE = ['```agent', 'steps:', '  - recipe: bump-dependency', '    package: org.example:library', '    to: 2.0.0', '```'].join('\n');

/** Marks the one note per attempt, so a retried invocation does not say it twice. */
const noteMarker = (runId: string, attempt: number) => `<!-- draftsman:follow-up-note ${runId}/${attempt} -->`;

/**
 * A follow-up that changed nothing says so on the pull request, once: a revision whose
 * instructions led to no change, or a CI repair of a recipe-only run (re-running the recipe on
 * the branch head changes nothing: the failure is not one the recipe can fix).
 */
export async function noteUnchangedFollowUp(
  api: GitHubApi,
  where: { owner: string; repo: string; runId: string; attempt: number; botLogin?: string },
  followUp: FollowUp | undefined,
  result: AttemptEnd,
): Promise<boolean> {
  if (!followUp || result.status !== 'FAILED' || !UNCHANGED.has(result.reason ?? '')) return false;
  const { owner, repo, runId, attempt } = where;
  const issue_number = followUp.onto.pullRequest;
  const marker = noteMarker(runId, attempt);
  const note = { owner, repo, issue: issue_number, marker, botLogin: where.botLogin };
  if (await findMarkedComment(api, note)) return false;
  const head = `\`${followUp.onto.headSha.slice(0, 12)}\``;
  const text =
    result.reason === 'REVISION_NEEDS_MODEL'
      ? `The revision asked by @${followUp.sender} is free text, and no model is configured to follow it (attempt ${attempt}); nothing was changed on ${head}. Without a model, a revision says what to change as recipe steps in an \`agent\` block under \`/agent revise\`, for example:\n\n${BLOCK_EXAMPLE}`
      : followUp.kind === 'ci-repair'
        ? `CI failed on ${head}: ${(followUp.ciFailures?.failures ?? []).map((f) => `\`${f.name.replace(/`/g, "'")}\``).join(', ') || 'the checks'}; nothing more was changed (attempt ${attempt}). A maintainer's fix is needed, or \`/agent revise\` with recipe steps in an \`agent\` block (free-text instructions need a model).`
        : `The revision asked by @${followUp.sender} changed nothing on ${head} (attempt ${attempt}); no commit was added.`;
  await createCommentOnce(api, { ...note, body: `${marker}\n${text}` });
  return true;
}

/** Attempts that rebuild an open pull request's change on a moved base. */
const REBUILDS = new Set<AttemptRequest['reason']>(['rebase', 'rerun-base-moved']);

/**
 * A rebuild on a moved base that could not make the change again (the new base conflicts with
 * it, or the run stopped) says so on the pull request, once; the branch stays as it was, and
 * nothing is forced.
 */
export async function noteFailedRebuild(
  api: GitHubApi,
  where: { owner: string; repo: string; runId: string; attempt: number; pullRequest: number | undefined; botLogin?: string },
  attemptRequest: AttemptRequest | undefined,
  result: AttemptEnd,
): Promise<boolean> {
  if (!attemptRequest || !REBUILDS.has(attemptRequest.reason) || where.pullRequest === undefined) return false;
  if (result.status === 'COMPLETED' || result.status === 'SUSPENDED') return false;
  const { owner, repo, runId, attempt } = where;
  const issue_number = where.pullRequest;
  const marker = noteMarker(runId, attempt);
  const note = { owner, repo, issue: issue_number, marker, botLogin: where.botLogin };
  if (await findMarkedComment(api, note)) return false;
  const base = result.baseCommitSha ? ` on \`${result.baseCommitSha.slice(0, 12)}\`` : '';
  const why = `${result.status}${result.reason ? ` (${result.reason.replace(/`/g, "'")})` : ''}`;
  const text = `Rebuilding this change on the moved base${base} did not succeed: ${why}, attempt ${attempt}. The branch is left as it was; merge the base into it yourself, or \`/agent retry\` on the issue after a fix.`;
  await createCommentOnce(api, { ...note, body: `${marker}\n${text}` });
  return true;
}
