import type { AgentPolicy } from '../../core/policy/agent-policy.js';
import { bounded, FOLLOW_UP_LIMITS, type ReviewComment } from '../../core/runs/follow-up.js';
import { followUpInstructions } from '../../core/runs/follow-up-task.js';
import type { SlashCommand } from '../../core/task/slash-command.js';
import { findAgentRun, type AgentRun } from './agent-run.js';
import { mentionInstructions, mentionsApp } from './app-mention.js';
import { startFollowUp } from './commands/follow-up.js';
import { hasMinPermission } from './permissions.js';
import { TEXTS } from './texts.js';
import type { TriggerOutcome } from './trigger-outcome.js';
import type { IssueCommentCreatedPayload, PullRequestReviewCommentCreatedPayload, PullRequestReviewSubmittedPayload } from './webhook-payloads.js';
import type { WebhookSession } from './webhook-session.js';

/** An open agent pull request of this repository as GitHub reports it now, and its run. */
interface AgentPull {
  run: AgentRun;
  onto: { branch: string; headSha: string; baseBranch: string; pullRequest: number };
}

/**
 * The run behind pull request `number`: its head must be an agent branch in this repository
 * whose run's `request.json` agrees (the rule CI feedback uses), and it must be open.
 */
export async function agentPullRequest(session: WebhookSession, number: number): Promise<AgentPull | undefined> {
  const api = await session.api();
  const pull = (await api.rest.pulls.get({ owner: session.owner, repo: session.repo, pull_number: number })).data;
  if (pull.state !== 'open' || pull.head.repo?.id !== session.repositoryId) return undefined;
  const run = await findAgentRun(session.deps.store, { id: session.repositoryId, name: session.repo, owner: { login: session.owner } }, pull.head.ref);
  if (!run) return undefined;
  return { run, onto: { branch: pull.head.ref, headSha: pull.head.sha, baseBranch: pull.base.ref, pullRequest: number } };
}

export type PullCommentRoute = { outcome: TriggerOutcome } | { payload: IssueCommentCreatedPayload };

/** What a revision asks, as the webhook read it (untrusted text; the trigger's identity is checked here). */
interface ReviseAsk {
  number: number;
  sender: string;
  source: string;
  instructions: string;
  reviewComments: ReviewComment[] | ((session: WebhookSession) => Promise<ReviewComment[]>);
}

/**
 * Start a revision of agent pull request `number` when the sender has the policy's minimum
 * permission (the rule commands follow); one at a time and once per source (startFollowUp).
 * Other pull requests are ignored.
 */
async function revise(session: WebhookSession, policy: AgentPolicy, ask: ReviseAsk, found?: AgentPull): Promise<TriggerOutcome> {
  const pull = found ?? (await agentPullRequest(session, ask.number));
  if (!pull) return { kind: 'ignored', why: 'not an open agent pull request' };
  if (!(await hasMinPermission(session, ask.number, ask.sender, policy))) return { kind: 'replied', why: 'insufficient permission' };
  const reviewComments = typeof ask.reviewComments === 'function' ? await ask.reviewComments(session) : ask.reviewComments;
  return startFollowUp(
    session,
    pull.run,
    {
      kind: 'revise',
      sender: ask.sender,
      source: ask.source,
      instructions: bounded(ask.instructions, FOLLOW_UP_LIMITS.instructionsChars),
      reviewComments,
      changedFiles: await readChangedFiles(session, ask.number),
      onto: pull.onto,
    },
    ask.number,
  );
}

/**
 * A command in a comment on a pull request. On an agent PR: `revise` starts a revision;
 * `status`, `help`, `cancel`, `retry` and `approve` address the PR's run (they are routed as
 * if written on the run's issue, where the run's progress comment lives); `run` and `analyze`
 * get a short reply. Comments on other pull requests are ignored.
 */
export async function routePullRequestComment(
  session: WebhookSession,
  policy: AgentPolicy,
  payload: IssueCommentCreatedPayload,
  parsed: SlashCommand,
): Promise<PullCommentRoute> {
  const number = payload.issue.number;
  const found = await agentPullRequest(session, number);
  if (!found) return { outcome: { kind: 'ignored', why: 'not an open agent pull request' } };
  if (parsed.command === 'run' || parsed.command === 'analyze' || parsed.command === 'plan') {
    await session.reply(number, TEXTS.notOnPullRequest(policy.triggers.commandPrefix));
    return { outcome: { kind: 'replied', why: 'run and analyze start from an issue' } };
  }
  if (parsed.command === 'revise') {
    const instructions = followUpInstructions(payload.comment.body, policy.triggers.commandPrefix);
    const ask = { number, sender: payload.sender.login, source: `comment-${payload.comment.id}`, instructions, reviewComments: [] };
    return { outcome: await revise(session, policy, ask, found) };
  }
  return { payload: { ...payload, issue: { ...payload.issue, number: found.run.issue, pull_request: undefined } } };
}

/**
 * A comment in a pull request's conversation that mentions the App (`@draftsman …`, like
 * `@copilot`) and holds no command: a revision of an agent PR, the comment without the mention
 * as its instructions. Bots and the App are ignored by the caller.
 */
export function onPullRequestMention(session: WebhookSession, policy: AgentPolicy, payload: IssueCommentCreatedPayload): Promise<TriggerOutcome> {
  const instructions = mentionInstructions(payload.comment.body, session.deps.botLogin);
  const ask = { number: payload.issue.number, sender: payload.sender.login, source: `comment-${payload.comment.id}`, instructions, reviewComments: [] };
  return revise(session, policy, ask);
}

/**
 * An inline review comment that mentions the App: a revision carrying that comment (file, line,
 * text) and the comment without the mention as its instructions.
 */
export function onReviewCommentMention(session: WebhookSession, policy: AgentPolicy, payload: PullRequestReviewCommentCreatedPayload): Promise<TriggerOutcome> {
  const c = payload.comment;
  const line = c.line ?? c.original_line ?? undefined;
  const inline: ReviewComment = {
    path: c.path,
    startLine: c.start_line ?? undefined,
    line,
    body: bounded(c.body, FOLLOW_UP_LIMITS.reviewCommentChars),
    author: c.user.login,
    url: c.html_url,
  };
  const instructions = mentionInstructions(c.body, session.deps.botLogin);
  const ask = { number: payload.pull_request.number, sender: payload.sender.login, source: `reviewcomment-${c.id}`, instructions, reviewComments: [inline] };
  return revise(session, policy, ask);
}

/**
 * A submitted review starts a revision carrying the review's inline comments (file, line range,
 * text) when its body holds `<prefix> revise ...`, when it requests changes, or when it mentions
 * the App. Other commands do not count in a review: a review is mostly prose, and a bare prefix
 * in it is more likely a quote than a request. Same permission rule as `run`; bots and the App
 * are ignored by the caller.
 */
export async function onReviewSubmitted(
  session: WebhookSession,
  policy: AgentPolicy,
  payload: PullRequestReviewSubmittedPayload,
  parsed: SlashCommand | undefined,
): Promise<TriggerOutcome> {
  const number = payload.pull_request.number;
  const body = payload.review.body ?? '';
  const botLogin = session.deps.botLogin;
  const asked = payload.review.state === 'changes_requested' || mentionsApp(body, botLogin);
  if (parsed?.command !== 'revise' && !asked) return { kind: 'ignored', why: 'only revise, a mention or a change request counts in a review' };
  const instructions = parsed?.command === 'revise' ? followUpInstructions(body, policy.triggers.commandPrefix) : mentionInstructions(body, botLogin);
  const reviewComments = (s: WebhookSession) => readReviewComments(s, number, payload.review.id);
  return revise(session, policy, { number, sender: payload.sender.login, source: `review-${payload.review.id}`, instructions, reviewComments });
}

/** The review's inline comments with the read token (pull_requests: read), bounded in count and size. */
async function readReviewComments(session: WebhookSession, number: number, reviewId: number): Promise<ReviewComment[]> {
  const api = await session.api();
  const res = await api.rest.pulls.listCommentsForReview({
    owner: session.owner,
    repo: session.repo,
    pull_number: number,
    review_id: reviewId,
    per_page: FOLLOW_UP_LIMITS.reviewComments,
  });
  return res.data.slice(0, FOLLOW_UP_LIMITS.reviewComments).map((c) => {
    const raw = c as { start_line?: number | null; line?: number | null; original_line?: number | null };
    const line = raw.line ?? raw.original_line ?? undefined;
    return {
      path: c.path,
      startLine: raw.start_line ?? undefined,
      line,
      body: bounded(c.body, FOLLOW_UP_LIMITS.reviewCommentChars),
      author: c.user?.login ?? 'unknown',
      url: c.html_url,
    };
  });
}

/** The files pull request `number` changes (one page, read token), a model revision's first targets. */
export async function readChangedFiles(session: WebhookSession, number: number): Promise<string[]> {
  const api = await session.api();
  const res = await api.rest.pulls.listFiles({ owner: session.owner, repo: session.repo, pull_number: number, per_page: FOLLOW_UP_LIMITS.changedFiles });
  return res.data.slice(0, FOLLOW_UP_LIMITS.changedFiles).map((f) => f.filename);
}
