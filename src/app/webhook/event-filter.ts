import type { ZodType } from 'zod';
import { parseAgentBranch } from '../../core/runs/run-branch.js';
import { mentionsApp } from './app-mention.js';
import { isBotOrSelf } from './permissions.js';
import {
  IssueCommentCreatedPayload,
  IssuesClosedPayload,
  IssuesLabeledPayload,
  IssuesOpenedPayload,
  PullRequestReviewCommentCreatedPayload,
  PullRequestReviewSubmittedPayload,
  PushPayload,
} from './webhook-payloads.js';

/**
 * What can be decided about a delivery without any network call: whether the App subscribes
 * to it, whether its payload has the shape the handlers parse, and the cheap reasons to ignore
 * it (a bot sender, a comment without a command). The webhook screens with this before it
 * answers; the trigger service runs the same predicates, so both give one answer.
 */

/**
 * Comments and reviews matter only when a line starts with a slash (the policy's prefix is
 * checked later), when they mention the App on a pull request, or when a review requests changes.
 */
const mayHoldCommand = (body: string): boolean => /^\s*\//m.test(body);

export function labeledSkip(payload: IssuesLabeledPayload, botLogin: string): string | undefined {
  if (isBotOrSelf(payload.sender, botLogin)) return 'sender is a bot';
  if (payload.issue.pull_request) return 'labels on pull requests do not trigger runs';
  if (!payload.label) return 'no label in the event';
  return undefined;
}

export function commentSkip(payload: IssueCommentCreatedPayload, botLogin: string): string | undefined {
  if (isBotOrSelf(payload.sender, botLogin) || isBotOrSelf(payload.comment.user, botLogin) || payload.comment.performed_via_github_app)
    return 'comment by a bot or the App';
  const body = payload.comment.body;
  if (!mayHoldCommand(body) && !(payload.issue.pull_request && mentionsApp(body, botLogin))) return 'not a command';
  return undefined;
}

export function reviewSkip(payload: PullRequestReviewSubmittedPayload, botLogin: string): string | undefined {
  if (isBotOrSelf(payload.sender, botLogin) || isBotOrSelf(payload.review.user, botLogin)) return 'review by a bot or the App';
  const body = payload.review.body ?? '';
  if (!mayHoldCommand(body) && payload.review.state !== 'changes_requested' && !mentionsApp(body, botLogin)) return 'not a command';
  return undefined;
}

/**
 * What the webhook keeps of submitted reviews: those that may ask for a revision (reviewSkip),
 * and any other review of an agent pull request by a person, whose review state a campaign's
 * tracking comment shows (src/app/campaign/campaign-refresh.ts). The trigger service still
 * starts a revision only under reviewSkip.
 */
export function reviewScreen(payload: PullRequestReviewSubmittedPayload, botLogin: string): string | undefined {
  const skip = reviewSkip(payload, botLogin);
  if (skip === 'not a command' && parseAgentBranch(payload.pull_request.head.ref)?.issue !== undefined) return undefined;
  return skip;
}

export function reviewCommentSkip(payload: PullRequestReviewCommentCreatedPayload, botLogin: string): string | undefined {
  if (isBotOrSelf(payload.sender, botLogin) || isBotOrSelf(payload.comment.user, botLogin)) return 'comment by a bot or the App';
  if (!mentionsApp(payload.comment.body, botLogin)) return 'does not mention the App';
  return undefined;
}

export function openedSkip(payload: IssuesOpenedPayload, botLogin: string): string | undefined {
  if (isBotOrSelf(payload.sender, botLogin) || (payload.issue.user && isBotOrSelf(payload.issue.user, botLogin))) return 'opened by a bot or the App';
  if (!payload.issue.user) return 'the author is unknown';
  return undefined;
}

export function closedSkip(payload: IssuesClosedPayload, botLogin: string): string | undefined {
  return isBotOrSelf(payload.sender, botLogin) ? 'closed by a bot' : undefined;
}

interface EventRule<T> {
  /** The subset the handler parses (a failure there was a 400 and stays one). */
  schema?: ZodType<T>;
  skip?: (payload: T, botLogin: string) => string | undefined;
}
const rule = <T>(r: EventRule<T>): EventRule<unknown> => r as EventRule<unknown>;

/**
 * Every event the Probot app handles, as `<event>.<action>` or `<event>` (all actions, or an
 * event without actions). A unit test keeps this list and the app's `app.on` calls equal.
 */
export const SUBSCRIBED_EVENTS: Readonly<Record<string, EventRule<unknown>>> = {
  'issues.labeled': rule({ schema: IssuesLabeledPayload, skip: labeledSkip }),
  'issue_comment.created': rule({ schema: IssueCommentCreatedPayload, skip: commentSkip }),
  'pull_request_review.submitted': rule({ schema: PullRequestReviewSubmittedPayload, skip: reviewScreen }),
  'pull_request_review_comment.created': rule({ schema: PullRequestReviewCommentCreatedPayload, skip: reviewCommentSkip }),
  'issues.closed': rule({ schema: IssuesClosedPayload, skip: closedSkip }),
  'issues.opened': rule({ schema: IssuesOpenedPayload, skip: openedSkip }),
  installation: {},
  installation_repositories: {},
  // CI records parse their own subsets and ignore what does not match: no 400 for them.
  'check_suite.completed': {},
  status: {},
  'pull_request.closed': {},
  push: rule({ schema: PushPayload }),
};

export type Screening =
  { verdict: 'accept'; kind: string } | { verdict: 'ignore'; kind: string; why: string } | { verdict: 'invalid'; kind: string; error: unknown };

/** The event kind of a delivery (`issues.labeled`, `push`) and what the webhook does with it. */
export function screenDelivery(name: string, payload: object, botLogin: string): Screening {
  const action = (payload as { action?: unknown }).action;
  const withAction = typeof action === 'string' ? `${name}.${action}` : name;
  const kind = Object.hasOwn(SUBSCRIBED_EVENTS, withAction) ? withAction : name;
  const rule = Object.hasOwn(SUBSCRIBED_EVENTS, kind) ? SUBSCRIBED_EVENTS[kind] : undefined;
  if (!rule) return { verdict: 'ignore', kind: withAction, why: 'event not subscribed' };
  if (!rule.schema) return { verdict: 'accept', kind };
  const parsed = rule.schema.safeParse(payload);
  if (!parsed.success) return { verdict: 'invalid', kind, error: parsed.error };
  const why = rule.skip?.(parsed.data, botLogin);
  return why === undefined ? { verdict: 'accept', kind } : { verdict: 'ignore', kind, why };
}
