import { ArtifactError } from './artifact-error.js';

/**
 * Every storage key (see docs/architecture.md), built in one place so writers, readers, IAM prefixes and the
 * local mirror agree. Identifiers that become one key segment (owner, repo, runId, phase, ...)
 * are validated: no `/`, no `\`, not `.`/`..`, no control characters, not empty. Sequence
 * numbers are zero-padded to SEQ_WIDTH digits so lexical order (what `list` returns) equals
 * numeric order.
 */

export const SEQ_WIDTH = 6;

/** Refuse a value that would not stay one key segment. */
export function keySegment(value: string | number, what: string): string {
  const text = String(value);
  if (!text || text === '.' || text === '..' || /[/\\\u0000-\u001f\u007f]/.test(text)) {
    throw new ArtifactError('ARTIFACT_KEY_INVALID', `invalid ${what} for a storage key: ${JSON.stringify(text)}`, { what, value: text });
  }
  return text;
}

export function positiveInt(value: number, what: string, min = 1): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ArtifactError('ARTIFACT_KEY_INVALID', `invalid ${what} for a storage key: ${value}`, { what, value });
  }
  return value;
}

/** A sequence number, zero-padded (`7` -> `000007`); refuses negatives and values wider than SEQ_WIDTH. */
export function padSeq(seq: number): string {
  positiveInt(seq, 'sequence number', 0);
  const text = String(seq);
  if (text.length > SEQ_WIDTH) {
    throw new ArtifactError('ARTIFACT_KEY_INVALID', `sequence number too large: ${seq}`, { what: 'sequence number', value: seq });
  }
  return text.padStart(SEQ_WIDTH, '0');
}

/** The sequence number at the start of a ledger/checkpoint/patch key's last segment, if any. */
export function parseSeq(key: string): number | undefined {
  const match = /^(\d+)(?:[-.]|$)/.exec(key.slice(key.lastIndexOf('/') + 1));
  return match ? Number(match[1]) : undefined;
}

/** A git object id (sha1 or sha256 hex). */
function objectId(value: string, what: string): string {
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(value)) {
    throw new ArtifactError('ARTIFACT_KEY_INVALID', `invalid ${what} for a storage key: ${JSON.stringify(value)}`, { what, value });
  }
  return value;
}

export interface AttemptKeys {
  /** `attempts/<n>/`, for listing and IAM. */
  prefix: string;
  /** Attempt start request (attempts n >= 2). */
  request: string;
  lease: string;
  continue(k: number): string;
  baseRef: string;
  ingestion: string;
  policyScan: string;
  repoMap: string;
  targetSelection: string;
  /**
   * `trail/<owner>/<repo>/<runId>/<n>/`: the attempt's trail (docs/architecture.md, "The trail"):
   * objects are only ever created there (the bucket policy requires If-None-Match and refuses
   * deletes), kept for the deployment's trail retention, apart from the run's scratch data.
   */
  trailPrefix: string;
  /** `<trail>ledger/`: the attempt's ledger, one object per entry. */
  ledgerPrefix: string;
  /** `<trail>spend/<call>.json`: one settled model call, written by the model caller. */
  spendCall(call: string): string;
  ledger(seq: number): string;
  checkpointsPrefix: string;
  checkpoint(seq: number, phase: string): string;
  patchesPrefix: string;
  patch(seq: number, segment: string): string;
  approvalRequest: string;
  /** `plan.json`: the plan an attempt stopped at for approval (`agent.requirePlanApproval`), written by the worker before its approval request. */
  plan: string;
  /** The worker's progress, which the publisher shows on the progress comment. */
  progress: string;
  /** The worker's heartbeat while it runs (worker/heartbeat.ts); the sweeper ends an attempt whose worker went silent. */
  heartbeat: string;
  /** `verify/<digest>/source.zip`: the candidate tree a build runs on (the worker writes it). */
  verifySource(digest: string): string;
  /**
   * `verify/<digest>/build-request.json`: a build request (the worker writes it; its creation starts the verifier).
   * Not `request.json`: RunWorkerRole denies the worker every key of its attempts ending in `/request.json`.
   */
  verifyRequest(digest: string): string;
}

/** `runs/<owner>/<repo>/<runId>/verify/<digest>/`: one build of the run, written by trusted writers only. */
export interface VerifyKeys {
  prefix: string;
  /** `source.zip`: the candidate archive, copied here by the verifier once its digest checked; the build reads it. */
  source: string;
  /** `build/`: the only place the build's own run-scoped session may write. */
  buildPrefix: string;
  /** `build/result.json`: what the build says its commands did (untrusted; the verifier validates it). */
  buildResult: string;
  /** `started.json`: the verifier started a build for this digest (once). */
  started: string;
  /** `result.json`: the verifier's trusted result; its creation resumes the worker through the dispatcher. */
  result: string;
}

export interface CandidateKeys {
  prefix: string;
  prCandidate: string;
  prBody: string;
  diffSummary: string;
  changesPrefix: string;
  change(blobSha: string): string;
}

export interface RunKeys {
  /** `runs/<owner>/<repo>/<runId>/` */
  prefix: string;
  /** `trail/<owner>/<repo>/<runId>/`: the trails of every attempt. */
  trailPrefix: string;
  request: string;
  run: string;
  cancel: string;
  approve(n: number): string;
  /** `control/gate-<n>.json`: the gate attempt n stopped at, as the publisher recomputed it. */
  gate(n: number): string;
  /** `control/follow-up-<source>.json`: a revision or repair starts once per comment, review or head SHA. */
  followUp(source: string): string;
  /** `control/publish-retry.json`: a publication to try again later (src/core/runs/publish-retry.ts); its creation starts the publisher. */
  publishRetry: string;
  attempt(n: number): AttemptKeys;
  candidate: CandidateKeys;
  publish: string;
  /** `spend.json`: what the run's model calls cost over all its attempts; only the trusted model caller writes it. */
  spend: string;
  /** `control/rebuild-<base sha>.json`: the rebuild on that base head was requested (once). */
  rebuildMarker(baseSha: string): string;
  ciPrefix: string;
  ci(checkSuiteId: string | number): string;
  /** `verify/`: builds of the run's candidates (docs/trust-chain.md, "Verification builds"). */
  verifyPrefix: string;
  verify(digest: string): VerifyKeys;
}

/** Keys of one run (`runs/<owner>/<repo>/<runId>/...`); `parseRunKey` in src/core/runs/run-key.ts reads them back. */
export function runKeys(owner: string, repo: string, runId: string): RunKeys {
  const root = `runs/${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}/${keySegment(runId, 'runId')}/`;
  const candidate = `${root}candidate/`;
  const trailRoot = `trail/${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}/${keySegment(runId, 'runId')}/`;
  return {
    prefix: root,
    trailPrefix: trailRoot,
    request: `${root}request.json`,
    run: `${root}run.json`,
    cancel: `${root}control/cancel.json`,
    approve: (n) => `${root}control/approve-${positiveInt(n, 'attempt number')}.json`,
    gate: (n) => `${root}control/gate-${positiveInt(n, 'attempt number')}.json`,
    followUp: (source) => `${root}control/follow-up-${keySegment(source, 'follow-up source')}.json`,
    publishRetry: `${root}control/publish-retry.json`,
    attempt: (n) => attemptKeys(`${root}attempts/${positiveInt(n, 'attempt number')}/`, `${trailRoot}${positiveInt(n, 'attempt number')}/`),
    candidate: {
      prefix: candidate,
      prCandidate: `${candidate}pr-candidate.json`,
      prBody: `${candidate}pr-body.md`,
      diffSummary: `${candidate}diff-summary.json`,
      changesPrefix: `${candidate}changes/`,
      change: (blobSha) => `${candidate}changes/${objectId(blobSha, 'blob sha')}`,
    },
    publish: `${root}publish.json`,
    spend: `${root}spend.json`,
    rebuildMarker: (baseSha) => `${root}control/rebuild-${objectId(baseSha, 'base sha')}.json`,
    ciPrefix: `${root}ci/`,
    ci: (id) => `${root}ci/${keySegment(id, 'check suite id')}.json`,
    verifyPrefix: `${root}verify/`,
    verify: (digest) => {
      const v = `${root}verify/${verifyDigest(digest)}/`;
      return {
        prefix: v,
        source: `${v}source.zip`,
        buildPrefix: `${v}build/`,
        buildResult: `${v}build/result.json`,
        started: `${v}started.json`,
        result: `${v}result.json`,
      };
    },
  };
}

/** A verification digest: sha256 hex. */
function verifyDigest(value: string): string {
  if (!/^[0-9a-f]{64}$/.test(value)) {
    throw new ArtifactError('ARTIFACT_KEY_INVALID', `invalid verification digest for a storage key: ${JSON.stringify(value)}`, {
      what: 'verification digest',
      value,
    });
  }
  return value;
}

function attemptKeys(a: string, trail: string): AttemptKeys {
  return {
    prefix: a,
    request: `${a}request.json`,
    lease: `${a}lease.json`,
    continue: (k) => `${a}continue-${positiveInt(k, 'continuation number')}.json`,
    baseRef: `${a}base-ref.json`,
    ingestion: `${a}ingestion.json`,
    policyScan: `${a}policy-scan.json`,
    repoMap: `${a}repo-map.json`,
    targetSelection: `${a}target-selection.json`,
    trailPrefix: trail,
    ledgerPrefix: `${trail}ledger/`,
    spendCall: (call) => `${trail}spend/${keySegment(call, 'model call id')}.json`,
    ledger: (seq) => `${trail}ledger/${padSeq(seq)}.json`,
    checkpointsPrefix: `${a}checkpoints/`,
    checkpoint: (seq, phase) => `${a}checkpoints/${padSeq(seq)}-${keySegment(phase, 'phase')}.json`,
    patchesPrefix: `${a}patches/`,
    patch: (seq, segment) => `${a}patches/${padSeq(seq)}-${keySegment(segment, 'patch segment')}.diff`,
    approvalRequest: `${a}approval-request.json`,
    plan: `${a}plan.json`,
    progress: `${a}progress.json`,
    heartbeat: `${a}heartbeat.json`,
    verifySource: (digest) => `${a}verify/${verifyDigest(digest)}/source.zip`,
    verifyRequest: (digest) => `${a}verify/${verifyDigest(digest)}/build-request.json`,
  };
}

/** `installations/<id>/grants.json`: what the installation lacks of the App's grants, and the issue that told its admin (the intake's). */
export function installationGrantsKey(installationId: number): string {
  return `installations/${positiveInt(installationId, 'installation id')}/grants.json`;
}

/** `issues/<owner>/<repo>/<n>/latest.json`: the issue's latest run. */
export function issueLatestKey(owner: string, repo: string, issue: number): string {
  return `issues/${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}/${positiveInt(issue, 'issue number')}/latest.json`;
}

/**
 * `issues/<owner>/<repo>/<n>/commands/comment-<id>.json`: a command comment that acted (approve,
 * retry, cancel, rebase), written once by the intake; a comment acts at most once.
 */
export function commandClaimKey(owner: string, repo: string, issue: number, commentId: number): string {
  return `issues/${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}/${positiveInt(issue, 'issue number')}/commands/comment-${positiveInt(commentId, 'comment id')}.json`;
}

/** `intakes/`: triggers the intake began and has not finished (the sweeper ends the ones left behind). */
export const INTAKES_PREFIX = 'intakes/';

/**
 * `intakes/<owner>/<repo>/<n>/<runId>.json`: the intake record of a trigger, written first and
 * deleted once its request is written (docs/architecture.md, "The intake").
 */
export function intakeKey(owner: string, repo: string, issue: number, runId: string): string {
  return `${INTAKES_PREFIX}${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}/${positiveInt(issue, 'issue number')}/${keySegment(runId, 'runId')}.json`;
}

/** `locks/<owner>/<repo>/issues/<n>.json`: one active run per issue. */
export function lockKey(owner: string, repo: string, issue: number): string {
  return `locks/${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}/issues/${positiveInt(issue, 'issue number')}.json`;
}

/** The UTC hour bucket `yyyy-mm-ddThh` of an epoch-milliseconds instant. */
export function hourBucket(epochMs: number): string {
  if (!Number.isFinite(epochMs)) {
    throw new ArtifactError('ARTIFACT_KEY_INVALID', `invalid instant for an hour bucket: ${epochMs}`, { what: 'instant', value: epochMs });
  }
  return new Date(epochMs).toISOString().slice(0, 13);
}

function hourSegment(hour: string | number): string {
  const text = typeof hour === 'number' ? hourBucket(hour) : hour;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}$/.test(text)) {
    throw new ArtifactError('ARTIFACT_KEY_INVALID', `invalid hour bucket: ${JSON.stringify(text)}`, { what: 'hour', value: text });
  }
  return text;
}

/** `limits/<owner>/<repo>/<yyyy-mm-ddThh>/`: list it to count the runs started in that hour. */
export function limitPrefix(owner: string, repo: string, hour: string | number): string {
  return `limits/${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}/${hourSegment(hour)}/`;
}

/** `limits/<owner>/<repo>/<yyyy-mm-ddThh>/slot-<k>.json`: start slot k of that hour (`limits.runsPerHour` an hour), taken create-only. */
export function limitSlotKey(owner: string, repo: string, hour: string | number, slot: number): string {
  return `${limitPrefix(owner, repo, hour)}slot-${padSeq(slot)}.json`;
}

/** The run queue's keys (`queue/`) are built in queue-keys.ts, beside these. */

/** `maps/<owner>/<repo>/<commit>/<scannerVersion>-<policyDigest>.json`: the repo-map cache. */
export function mapKey(owner: string, repo: string, commit: string, scannerVersion: string, policyDigest: string): string {
  return `maps/${keySegment(owner, 'owner')}/${keySegment(repo, 'repo')}/${objectId(commit, 'commit sha')}/${keySegment(scannerVersion, 'scanner version')}-${keySegment(policyDigest, 'policy digest')}.json`;
}

/** `deliveries/`: verified webhook deliveries waiting for the intake (the bucket triggers it on this prefix). */
export const DELIVERIES_PREFIX = 'deliveries/';

/** `deliveries/<X-GitHub-Delivery>.json`: one verified delivery; a redelivery overwrites it (the trigger keys dedupe). */
export function deliveryKey(deliveryId: string): string {
  return `${DELIVERIES_PREFIX}${keySegment(deliveryId, 'delivery id')}.json`;
}

/** The delivery id of a `deliveries/<id>.json` key, or undefined for any other key. */
export function parseDeliveryKey(key: string): string | undefined {
  const match = /^deliveries\/([^/]+)\.json$/.exec(key);
  return match ? match[1] : undefined;
}

/** The spend records one model call is charged to (docs/architecture.md, "Spend"); only the trusted model caller writes them. */
export interface SpendKeys {
  /** `runs/<owner>/<repo>/<runId>/spend.json`: every attempt of the run (the worker may read it, never write it). */
  task: string;
  /** `spend/repos/<owner>/<repo>/<yyyy-mm>.json`: the repository's calendar month (UTC). */
  repository: string;
  /** `spend/installations/<installation>/<yyyy-mm>.json`: the installation's month (`local` in the CLI). */
  installation: string;
}

export function spendKeys(scope: { owner: string; repo: string; runId: string; installation: string }, month: string): SpendKeys {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) {
    throw new ArtifactError('ARTIFACT_KEY_INVALID', `invalid month for a storage key: ${JSON.stringify(month)}`, { what: 'month', value: month });
  }
  const owner = keySegment(scope.owner, 'owner');
  const repo = keySegment(scope.repo, 'repo');
  return {
    task: runKeys(scope.owner, scope.repo, scope.runId).spend,
    repository: `spend/repos/${owner}/${repo}/${month}.json`,
    installation: `spend/installations/${keySegment(scope.installation, 'installation')}/${month}.json`,
  };
}
