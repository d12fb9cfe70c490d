import { issueLatestKey, lockKey, runKeys } from '../../core/artifacts/keys.js';
import { isGitHubOwner, isGitHubRepo, isRunId } from './run-key.js';
import { RunSessionError } from './dispatch-record.js';

/** One IAM policy statement, as STS accepts it in a session policy. */
export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface PolicyDocument {
  Version: '2012-10-17';
  Statement: PolicyStatement[];
}

export interface RunScope {
  owner: string;
  repo: string;
  runId: string;
  /** The issue the run works on, when it has one (its lock and its latest-run pointer). */
  issue?: number;
}

/** STS refuses session policies longer than this (plain text). */
export const SESSION_POLICY_MAX_CHARS = 2048;

/**
 * The session policy run-session passes to `sts:AssumeRole` on RunWorkerRole. The effective
 * rights are its intersection with the role's own policy: the role lists exactly which keys a
 * worker touches (scoped to one run by session tags), this policy pins the run a second time,
 * independently of the tags. It stays coarse (one run prefix, not a key list) so that it fits
 * STS's 2048-character limit for realistic names; explicit denies keep the attempt requests
 * (which carry approvals) and the dispatch records (which carry capabilities) out of reach.
 * Every ARN is built from validated names (GitHub's charsets contain no `*` or `?`) and the
 * one key builder. Returns undefined when even this does not fit (names near GitHub's maxima):
 * the tag-scoped role alone then bounds the session.
 */
export function buildSessionPolicy(scope: RunScope, bucket: string, partition = 'aws'): PolicyDocument | undefined {
  assertScope(scope);
  const object = (key: string) => `arn:${partition}:s3:::${bucket}/${key}`;
  const run = runKeys(scope.owner, scope.repo, scope.runId);
  const maps = `maps/${scope.owner}/${scope.repo}/`;
  const lock = scope.issue === undefined ? undefined : lockKey(scope.owner, scope.repo, scope.issue);
  const latest = scope.issue === undefined ? undefined : issueLatestKey(scope.owner, scope.repo, scope.issue);
  const statements: PolicyStatement[] = [
    { Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'], Resource: [`${run.prefix}*`, `${run.trailPrefix}*`, `${maps}*`].map(object) },
    ...(lock && latest
      ? [
          { Effect: 'Allow' as const, Action: 's3:GetObject', Resource: object(lock) },
          { Effect: 'Allow' as const, Action: 's3:PutObject', Resource: object(latest) },
        ]
      : []),
    {
      Effect: 'Allow',
      Action: 's3:ListBucket',
      Resource: `arn:${partition}:s3:::${bucket}`,
      Condition: { StringLikeIfExists: { 's3:prefix': [`${run.prefix}*`, `${run.trailPrefix}*`, `${maps}*`] } },
    },
    { Effect: 'Deny', Action: ['s3:PutObject', 's3:DeleteObject'], Resource: object(`${run.prefix}attempts/*/request.json`) },
    { Effect: 'Deny', Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], Resource: object(`${run.prefix}dispatch/*`) },
  ];
  const policy: PolicyDocument = { Version: '2012-10-17', Statement: statements };
  return JSON.stringify(policy).length > SESSION_POLICY_MAX_CHARS ? undefined : policy;
}

/**
 * Session tags: RunWorkerRole's own policy names its keys through `${aws:PrincipalTag/...}`,
 * so even a session without a session policy reaches one run only.
 */
export function sessionTags(scope: RunScope): { Key: string; Value: string }[] {
  assertScope(scope);
  const tags = [
    { Key: 'owner', Value: scope.owner },
    { Key: 'repo', Value: scope.repo },
    { Key: 'runId', Value: scope.runId },
  ];
  if (scope.issue !== undefined) tags.push({ Key: 'issue', Value: String(scope.issue) });
  return tags;
}

function assertScope(scope: RunScope): void {
  const valid =
    isGitHubOwner(scope.owner) &&
    isGitHubRepo(scope.repo) &&
    isRunId(scope.runId) &&
    (scope.issue === undefined || (Number.isSafeInteger(scope.issue) && scope.issue > 0));
  if (!valid)
    throw new RunSessionError('RUN_REQUEST_MISMATCH', 'The run names an owner, repository or run id that cannot be put in an ARN', {
      owner: scope.owner,
      repo: scope.repo,
      runId: scope.runId,
    });
}
