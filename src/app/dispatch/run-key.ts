import { runKeys } from '../../core/artifacts/keys.js';

/**
 * The keys that start (or continue) a worker invocation, parsed strictly: exact segment
 * structure, GitHub's owner and repository name charsets, the webhook's run id format. A key
 * that is not exactly one of these is no trigger at all; nothing downstream sees it.
 *
 *   runs/<owner>/<repo>/<runId>/request.json                       attempt 1
 *   runs/<owner>/<repo>/<runId>/attempts/<n>/request.json          attempt n >= 2
 *   runs/<owner>/<repo>/<runId>/attempts/<n>/continue-<k>.json     continuation k >= 1
 */
export interface RunTrigger {
  owner: string;
  repo: string;
  runId: string;
  attempt: number;
  /** 0 = the attempt's first invocation. */
  continuation: number;
}

/** GitHub logins: alphanumerics and single inner hyphens, at most 39 characters. */
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
/** GitHub repository names: `[A-Za-z0-9._-]`, at most 100 characters, never `.` or `..`. */
const REPO = /^[A-Za-z0-9._-]{1,100}$/;
/** The webhook's run id: 12 characters of lower-case base32. */
const RUN_ID = /^[a-z2-7]{12}$/;
/** A positive decimal without leading zeros, small enough to stay a safe integer. */
const POSITIVE = '([1-9][0-9]{0,8})';

const TRIGGER = new RegExp(`^runs/([^/]+)/([^/]+)/([^/]+)/(?:request\\.json|attempts/${POSITIVE}/(?:request\\.json|continue-${POSITIVE}\\.json))$`);

export function isGitHubOwner(value: string): boolean {
  return OWNER.test(value);
}

export function isGitHubRepo(value: string): boolean {
  return REPO.test(value) && value !== '.' && value !== '..';
}

export function isRunId(value: string): boolean {
  return RUN_ID.test(value);
}

/** The trigger an S3 key stands for, or undefined when the key is not exactly a trigger key. */
export function parseRunTrigger(key: string): RunTrigger | undefined {
  const match = TRIGGER.exec(key);
  if (!match) return undefined;
  const [, owner, repo, runId, attemptText, continuationText] = match;
  if (!isGitHubOwner(owner) || !isGitHubRepo(repo) || !isRunId(runId)) return undefined;
  const attempt = attemptText ? Number(attemptText) : 1;
  // `attempts/1/request.json` does not exist: attempt 1 starts from the run's request.json.
  if (attemptText && !continuationText && attempt < 2) return undefined;
  return { owner, repo, runId, attempt, continuation: continuationText ? Number(continuationText) : 0 };
}

/** The key a trigger was parsed from (round trip through the one key builder). */
export function triggerKey(trigger: RunTrigger): string {
  const keys = runKeys(trigger.owner, trigger.repo, trigger.runId);
  if (trigger.continuation > 0) return keys.attempt(trigger.attempt).continue(trigger.continuation);
  return trigger.attempt === 1 ? keys.request : keys.attempt(trigger.attempt).request;
}
