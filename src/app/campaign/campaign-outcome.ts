import { PUBLISH_REASONS } from '../../core/publish/publish-error.js';

/**
 * How one repository of a campaign ended, from its run's status and reason: the one reading the
 * CLI's `campaign run` and the App's campaign function share (docs/campaigns.md).
 * - changed: a commit (a pull request in the App);
 * - unchanged: nothing to do there (already migrated, no match) or an analysis;
 * - declined: the repository's own policy stopped it or waits for an approval;
 * - failed: anything else.
 */
export type CampaignOutcomeKind = 'changed' | 'unchanged' | 'declined' | 'failed';

/** Statuses a repository's own policy gives: reported, never overridden, and not a failure of the campaign. */
const DECLINED = new Set(['NEEDS_APPROVAL', 'BLOCKED']);
/** Publication refusals that are the repository's policy speaking (disabled, no draft PRs, an approval to give, a rule that says no). */
const POLICY_REFUSALS = new Set(['POLICY_REFUSED', 'APPROVAL_REQUIRED', 'RULE_DENIED']);
const isPublishReason = (reason: string): boolean => (PUBLISH_REASONS as readonly string[]).includes(reason);
/** Stops that mean the task has nothing to do in this repository (already migrated, no match): not a failure of the campaign. */
const NOTHING_TO_DO = new Set(['TARGET_SELECTION_EMPTY', 'NO_CHANGES']);

/** The outcome of a run that ended with `status` (and `reason`); `changed` says whether it made a commit. */
export function outcomeOf(status: string, changed: boolean, reason: string | undefined): CampaignOutcomeKind {
  if (status === 'COMPLETED' || status === 'PUBLISHED' || status === 'MERGED') return changed ? 'changed' : 'unchanged';
  if (status === 'FAILED' && reason && NOTHING_TO_DO.has(reason)) return 'unchanged';
  // A refused publication ends BLOCKED with the refusal's reason (cli-explain.ts): the policy's own refusals decline, the rest fail.
  if (status === 'BLOCKED' && reason && isPublishReason(reason) && !POLICY_REFUSALS.has(reason)) return 'failed';
  if (DECLINED.has(status)) return 'declined';
  return 'failed';
}
