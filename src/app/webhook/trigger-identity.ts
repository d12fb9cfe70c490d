import { shortId } from '../../core/util/digest.js';
import type { IssueCommentCreatedPayload, IssuesLabeledPayload } from './webhook-payloads.js';

/**
 * Trigger keys come from signed payload content only, never from a header: a redelivery, or a
 * captured body replayed under a new `X-GitHub-Delivery`, has the same key and so the same run.
 * A label event is the issue, the label and the issue's `updated_at`, which GitHub sets when
 * the label is applied and which is part of the signed body.
 */
export function labelTriggerKey(issue: IssuesLabeledPayload['issue'], label: { id: number }): string {
  return `label-${issue.id}-${label.id}-${issue.updated_at}`;
}

export function commentTriggerKey(payload: IssueCommentCreatedPayload): string {
  return `comment-${payload.comment.id}`;
}

/** First 12 characters of base32(sha256(repository id, issue number, trigger key)). */
export function runIdFor(repositoryId: number, issueNumber: number, triggerKey: string): string {
  return shortId(repositoryId, issueNumber, triggerKey);
}
