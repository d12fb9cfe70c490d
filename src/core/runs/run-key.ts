/**
 * Reading a storage key back into what it addresses. Keys are built by `runKeys` in
 * src/core/artifacts/keys.ts; this is the one place that parses them, strictly: the owner and
 * repository must be valid GitHub names, the run id must have the exact shape runs are given,
 * numbers must be canonical (no sign, no leading zero). Anything else is undefined, so an object
 * someone planted under a look-alike key never reaches a handler.
 */

/** A run id: the first 12 characters of a lower-case base32 sha256 digest. */
export const RUN_ID_PATTERN = /^[a-z2-7]{12}$/;
/** GitHub logins: alphanumerics and single inner hyphens, at most 39 characters. */
const OWNER_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const OWNER = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})';
const REPO = '[A-Za-z0-9._-]{1,100}';
const RUN_ID = '[a-z2-7]{12}';
const N = '[1-9][0-9]{0,5}';
const CI_ID = '[A-Za-z0-9][A-Za-z0-9-]{0,99}';
const DIGEST = '[0-9a-f]{64}';

export type RunObjectKind =
  | 'request'
  | 'run'
  | 'publish'
  | 'cancel'
  | 'approve'
  | 'attempt-request'
  | 'continuation'
  | 'approval-request'
  | 'progress'
  | 'pr-candidate'
  | 'ci'
  | 'publish-retry'
  | 'verify-request'
  | 'verify-result';

/** The objects whose creation starts the publisher (the bucket's notifications route them there). */
export const PUBLISHER_KINDS: ReadonlySet<RunObjectKind> = new Set(['pr-candidate', 'ci', 'approval-request', 'progress', 'publish-retry']);

export interface ParsedRunKey {
  owner: string;
  repo: string;
  runId: string;
  kind: RunObjectKind;
  /** The attempt the object belongs to (1 for `request.json`); absent for run-wide objects. */
  attempt?: number;
  /** `continue-<k>.json`: k. */
  continuation?: number;
  /** `ci/<id>.json`: id. */
  ciId?: string;
  /** `verify/<digest>/…`: the build's digest. */
  digest?: string;
}

const RUN_KEY = new RegExp(
  `^runs/(${OWNER})/(${REPO})/(${RUN_ID})/(?:` +
    [
      '(?<request>request\\.json)',
      '(?<run>run\\.json)',
      '(?<publish>publish\\.json)',
      '(?<cancel>control/cancel\\.json)',
      '(?<publishRetry>control/publish-retry\\.json)',
      `control/approve-(?<approve>${N})\\.json`,
      `attempts/(?<attempt>${N})/(?:(?<attemptRequest>request\\.json)|(?<approvalRequest>approval-request\\.json)|(?<progress>progress\\.json)|continue-(?<continuation>${N})\\.json|verify/(?<verifyRequest>${DIGEST})/build-request\\.json)`,
      `verify/(?<verifyResult>${DIGEST})/result\\.json`,
      '(?<candidate>candidate/pr-candidate\\.json)',
      `ci/(?<ci>${CI_ID})\\.json`,
    ].join('|') +
    ')$',
);

export function isRunId(value: string): boolean {
  return RUN_ID_PATTERN.test(value);
}

export function isGitHubOwner(value: string): boolean {
  return OWNER_NAME.test(value);
}

/** GitHub repository names: `[A-Za-z0-9._-]`, at most 100 characters, never `.` or `..`. */
export function isGitHubRepo(value: string): boolean {
  return new RegExp(`^${REPO}$`).test(value) && value !== '.' && value !== '..';
}

/** What a run key addresses, or undefined for anything that is not exactly one of the known run objects. */
export function parseRunKey(key: string): ParsedRunKey | undefined {
  const match = RUN_KEY.exec(key);
  if (!match?.groups) return undefined;
  const [, owner, repo, runId] = match;
  if (repo === '.' || repo === '..') return undefined;
  const g = match.groups;
  const base = { owner, repo, runId };
  if (g.request) return { ...base, kind: 'request', attempt: 1 };
  if (g.run) return { ...base, kind: 'run' };
  if (g.publish) return { ...base, kind: 'publish' };
  if (g.cancel) return { ...base, kind: 'cancel' };
  if (g.publishRetry) return { ...base, kind: 'publish-retry' };
  if (g.approve) return { ...base, kind: 'approve', attempt: Number(g.approve) };
  if (g.attempt) {
    const attempt = Number(g.attempt);
    if (g.attemptRequest) return attempt >= 2 ? { ...base, kind: 'attempt-request', attempt } : undefined;
    if (g.approvalRequest) return { ...base, kind: 'approval-request', attempt };
    if (g.progress) return { ...base, kind: 'progress', attempt };
    if (g.verifyRequest) return { ...base, kind: 'verify-request', attempt, digest: g.verifyRequest };
    return { ...base, kind: 'continuation', attempt, continuation: Number(g.continuation) };
  }
  if (g.candidate) return { ...base, kind: 'pr-candidate' };
  if (g.ci) return { ...base, kind: 'ci', ciId: g.ci };
  if (g.verifyResult) return { ...base, kind: 'verify-result', digest: g.verifyResult };
  return undefined;
}

const ISSUE_KEY = new RegExp(`^(?:locks/(${OWNER})/(${REPO})/issues/(${N})\\.json|issues/(${OWNER})/(${REPO})/(${N})/latest\\.json)$`);

/** `locks/<owner>/<repo>/issues/<n>.json` or `issues/<owner>/<repo>/<n>/latest.json`, read back; undefined for anything else. */
export function parseIssueKey(key: string): { kind: 'lock' | 'latest'; owner: string; repo: string; issue: number } | undefined {
  const m = ISSUE_KEY.exec(key);
  if (!m) return undefined;
  const [owner, repo, issue] = m[1] !== undefined ? [m[1], m[2], m[3]] : [m[4], m[5], m[6]];
  if (repo === '.' || repo === '..') return undefined;
  return { kind: m[1] !== undefined ? 'lock' : 'latest', owner, repo, issue: Number(issue) };
}

const INTAKE_KEY = new RegExp(`^intakes/(${OWNER})/(${REPO})/(${N})/(${RUN_ID})\\.json$`);

/** `intakes/<owner>/<repo>/<n>/<runId>.json`, read back; undefined for anything else. */
export function parseIntakeKey(key: string): { owner: string; repo: string; issue: number; runId: string } | undefined {
  const m = INTAKE_KEY.exec(key);
  if (!m || m[2] === '.' || m[2] === '..') return undefined;
  return { owner: m[1], repo: m[2], issue: Number(m[3]), runId: m[4] };
}

/** A key that starts or continues a worker invocation: a run's request, an attempt's request (n >= 2), a continuation. */
export interface RunTrigger {
  owner: string;
  repo: string;
  runId: string;
  attempt: number;
  /** 0 = the attempt's first invocation. */
  continuation: number;
}

/** The trigger an S3 key stands for, or undefined when the key is not exactly a trigger key (or names an owner GitHub would not accept). */
export function parseRunTrigger(key: string): RunTrigger | undefined {
  const parsed = parseRunKey(key);
  if (!parsed || parsed.attempt === undefined || !isGitHubOwner(parsed.owner)) return undefined;
  if (parsed.kind !== 'request' && parsed.kind !== 'attempt-request' && parsed.kind !== 'continuation') return undefined;
  return { owner: parsed.owner, repo: parsed.repo, runId: parsed.runId, attempt: parsed.attempt, continuation: parsed.continuation ?? 0 };
}
