import { z } from 'zod';
import { putArtifactIfAbsent, putArtifactIfMatch, readArtifactIfPresent, readArtifactVersioned } from '../../core/artifacts/artifact-io.js';
import { runKeys } from '../../core/artifacts/keys.js';
import type { ArtifactStore, Clock, Logger } from '../../core/ports.js';
import { trustedAttemptState } from '../../core/runs/attempts.js';
import { buildspecFor } from '../../core/runs/buildspec.js';
import { isGitHubOwner, parseRunKey } from '../../core/runs/run-key.js';
import { CancelMarker } from '../../core/runs/run-state.js';
import {
  BuildResult,
  buildDigest,
  buildRoot,
  MAX_BUILD_BUDGET_MS,
  MAX_BUILD_RESULT_BYTES,
  MAX_SOURCE_BYTES,
  StartedBuild,
  trustedOutcomes,
  VerifyBuildRequest,
  VerifyResult,
} from '../../core/runs/verify-build.js';
import { sha256Hex } from '../../core/util/digest.js';
import { decodeS3EventKey } from '../aws/s3-artifact-store.js';
import type { RunCredentialsIssuer } from '../dispatch/create-run-session-handler.js';
import { BucketEvent, readTrustedRequest } from '../dispatch/create-dispatcher-handler.js';
import { buildSessionPolicy } from './build-session-policy.js';
import type { BuildService } from './codebuild-client.js';

/** Builds one attempt may start: each is a request the worker wrote, so its count is bounded here. */
export const MAX_BUILDS_PER_ATTEMPT = 8;
/** Largest build request read (the schema bounds the rest). */
const MAX_REQUEST_BYTES = 512 * 1024;
/** The build's session: a chained role session lasts one hour at most. */
const BUILD_SESSION_SECONDS = 3600;
/** The non-secret variable that names the build's run prefix (the state change event and BatchGetBuilds show it). */
export const BUILD_PREFIX_VARIABLE = 'DRAFTSMAN_VERIFY_PREFIX';

export interface VerifierDeps {
  /** VerifierRole: reads the run's request, attempt markers and build requests; writes `verify/*`. */
  store: ArtifactStore;
  /** An object's size before it is read (S3 HeadObject), so no read is larger than its bound. */
  sizeOf: (key: string) => Promise<number | undefined>;
  clock: Clock;
  logger: Logger;
  builds: BuildService;
  /** VerifyBuildRole sessions with the run's tags and `buildSessionPolicy`. */
  credentials: RunCredentialsIssuer;
  bucket: string;
  /** CodeBuild projects: `isolated` runs in a VPC without egress; `withNetwork`, if configured, reaches package registries. */
  projects: { isolated: string; withNetwork?: string };
  /** The managed image builds run on (one image with every toolchain the repository map knows). */
  image: string;
}

/** EventBridge's "CodeBuild Build State Change" (the fields the verifier reads). */
const BuildStateChange = z.object({
  source: z.literal('aws.codebuild'),
  'detail-type': z.literal('CodeBuild Build State Change'),
  detail: z.object({ 'build-status': z.string().max(40), 'build-id': z.string().min(1).max(400), 'project-name': z.string().max(255) }),
});

const TERMINAL = new Set(['SUCCEEDED', 'FAILED', 'FAULT', 'TIMED_OUT', 'STOPPED']);

/** `arn:aws:codebuild:<region>:<account>:build/<project>:<uuid>` or `<project>:<uuid>` as StartBuild returns it. */
function buildIdOf(idOrArn: string): string {
  const at = idOrArn.indexOf(':build/');
  return at >= 0 ? idOrArn.slice(at + ':build/'.length) : idOrArn;
}

export type VerifierOutcome = { started: string } | { finished: string } | { ignored: string };

/**
 * The verifier function (trusted): starts a verification build for a build request the worker
 * wrote, and turns the build's end into the trusted result the worker resumes with
 * (docs/architecture.md, "Verification"; docs/trust-chain.md, "Verification builds").
 */
export function createVerifierHandler(deps: VerifierDeps) {
  return async (event: unknown): Promise<VerifierOutcome[]> => {
    const change = BuildStateChange.safeParse(event);
    if (change.success) return [await finishBuild(deps, change.data.detail)];
    const parsed = BucketEvent.parse(event);
    const out: VerifierOutcome[] = [];
    for (const record of parsed.Records) {
      const key = decodeS3EventKey(record.s3.object.key);
      out.push(record.eventName.startsWith('ObjectCreated') ? await startBuild(deps, key) : { ignored: key });
    }
    return out;
  };
}

async function readBounded(deps: VerifierDeps, key: string, max: number): Promise<Uint8Array | undefined> {
  const size = await deps.sizeOf(key);
  if (size === undefined || size > max) return undefined;
  const object = await deps.store.get(key);
  return object && object.body.length <= max ? object.body : undefined;
}

/** Why a build request starts nothing, or the request and its run. */
async function admitRequest(deps: VerifierDeps, key: string): Promise<{ refused: string } | { request: VerifyBuildRequest; owner: string; repo: string }> {
  const parsed = parseRunKey(key);
  if (parsed?.kind !== 'verify-request' || !isGitHubOwner(parsed.owner) || !parsed.digest || !parsed.attempt) return { refused: 'not a build request key' };
  const { owner, repo, runId } = parsed;
  if (!(await readTrustedRequest(deps.store, parsed))) return { refused: 'no request.json' };
  const keys = runKeys(owner, repo, runId);
  const state = await trustedAttemptState(deps.store, keys, runId, parsed.attempt);
  if (!state.requested || state.superseded) return { refused: 'the attempt is not the run’s live attempt' };
  const cancel = await readArtifactIfPresent(deps.store, keys.cancel, CancelMarker).catch(() => undefined);
  if (cancel && cancel.runId === runId && cancel.attempt >= parsed.attempt) return { refused: 'the run was cancelled' };
  const body = await readBounded(deps, key, MAX_REQUEST_BYTES);
  const request = body ? VerifyBuildRequest.safeParse(JSON.parse(new TextDecoder().decode(body))) : undefined;
  if (!request?.success) return { refused: 'the build request is missing, too large or invalid' };
  const r = request.data;
  if (r.runId !== runId || r.attempt !== parsed.attempt || r.digest !== parsed.digest)
    return { refused: 'the build request names another run, attempt or digest' };
  if (buildDigest(r.sourceSha256, r.commands, r.limits) !== r.digest) return { refused: 'the digest does not cover the request' };
  if (r.limits.budgetMs > MAX_BUILD_BUDGET_MS) return { refused: 'the budget is longer than a build session lasts' };
  return { request: r, owner, repo };
}

/** One more build of the attempt, by compare-and-swap; false once it started MAX_BUILDS_PER_ATTEMPT. */
async function countBuild(store: ArtifactStore, key: string, digest: string): Promise<boolean> {
  const Count = z.strictObject({ schemaVersion: z.literal(1), digests: z.array(z.string()).max(MAX_BUILDS_PER_ATTEMPT) });
  for (let tries = 0; tries < 5; tries++) {
    const held = await readArtifactVersioned(store, key, Count);
    if (!held) {
      if (await putArtifactIfAbsent(store, key, Count, { schemaVersion: 1, digests: [digest] })) return true;
      continue;
    }
    if (held.value.digests.includes(digest)) return true;
    if (held.value.digests.length >= MAX_BUILDS_PER_ATTEMPT) return false;
    if (await putArtifactIfMatch(store, key, Count, { schemaVersion: 1, digests: [...held.value.digests, digest] }, held.etag)) return true;
  }
  return false;
}

async function startBuild(deps: VerifierDeps, key: string): Promise<VerifierOutcome> {
  const admitted = await admitRequest(deps, key);
  if ('refused' in admitted) {
    deps.logger.warn('verifier refused a build request', { key: key.slice(0, 300), why: admitted.refused });
    return { ignored: admitted.refused };
  }
  const { request, owner, repo } = admitted;
  const run = runKeys(owner, repo, request.runId);
  const keys = run.verify(request.digest);
  if ((await deps.store.get(keys.started)) || (await deps.store.get(keys.result))) return { ignored: 'a build for this digest was started already' };
  if (!(await countBuild(deps.store, `${run.verifyPrefix}attempt-${request.attempt}.json`, request.digest))) {
    return writeResult(deps, keys.result, request, {
      buildId: '',
      buildStatus: 'NOT_STARTED',
      failure: `the attempt started ${MAX_BUILDS_PER_ATTEMPT} builds already`,
    });
  }
  const project = request.limits.network ? deps.projects.withNetwork : deps.projects.isolated;
  if (!project)
    return writeResult(deps, keys.result, request, {
      buildId: '',
      buildStatus: 'NOT_STARTED',
      failure: 'agent.verify.network is true and this installation has no build project with network access',
    });
  // The archive is copied where only trusted writers reach, after its digest is checked, so the build runs on the bytes the digest names.
  const source = await readBounded(deps, run.attempt(request.attempt).verifySource(request.digest), MAX_SOURCE_BYTES);
  if (!source || source.length !== request.sourceBytes || sha256Hex(source) !== request.sourceSha256) {
    return writeResult(deps, keys.result, request, {
      buildId: '',
      buildStatus: 'NOT_STARTED',
      failure: 'the candidate archive is missing or does not match its digest',
    });
  }
  await deps.store.put(keys.source, source, { contentType: 'application/zip' });
  const credentials = await deps.credentials.issue({
    sessionName: `verify-${request.runId}-${request.digest.slice(0, 16)}`,
    policy: buildSessionPolicy(deps.bucket, { owner, repo, runId: request.runId, digest: request.digest }),
    tags: [
      { Key: 'owner', Value: owner },
      { Key: 'repo', Value: repo },
      { Key: 'runId', Value: request.runId },
      { Key: 'digest', Value: request.digest },
    ],
    durationSeconds: BUILD_SESSION_SECONDS,
  });
  const build = await deps.builds.start({
    projectName: project,
    sourceTypeOverride: 'NO_SOURCE',
    artifactsOverride: { type: 'NO_ARTIFACTS' },
    buildspecOverride: buildspecFor(request, { bucket: deps.bucket, sourceKey: keys.source, resultKey: keys.buildResult }),
    imageOverride: deps.image,
    environmentTypeOverride: 'LINUX_CONTAINER',
    privilegedModeOverride: false,
    timeoutInMinutesOverride: Math.min(60, Math.ceil(request.limits.budgetMs / 60_000) + 10),
    // The run-scoped session only: no repository secret, no token, nothing of the verifier's own role.
    environmentVariablesOverride: [
      { name: BUILD_PREFIX_VARIABLE, value: keys.prefix, type: 'PLAINTEXT' },
      { name: 'AWS_ACCESS_KEY_ID', value: credentials.accessKeyId, type: 'PLAINTEXT' },
      { name: 'AWS_SECRET_ACCESS_KEY', value: credentials.secretAccessKey, type: 'PLAINTEXT' },
      { name: 'AWS_SESSION_TOKEN', value: credentials.sessionToken, type: 'PLAINTEXT' },
    ],
    idempotencyToken: request.digest,
  });
  const started: StartedBuild = {
    schemaVersion: 1,
    runId: request.runId,
    attempt: request.attempt,
    continuation: request.continuation,
    digest: request.digest,
    buildId: build.id,
    commands: request.commands.length,
    startedAt: new Date(deps.clock.now()).toISOString(),
  };
  await putArtifactIfAbsent(deps.store, keys.started, StartedBuild, started);
  deps.logger.info('verification build started', { buildId: build.id, runId: request.runId, attempt: request.attempt });
  return { started: build.id };
}

async function writeResult(
  deps: VerifierDeps,
  key: string,
  at: Pick<VerifyBuildRequest, 'runId' | 'attempt' | 'continuation' | 'digest'>,
  outcome: { buildId: string; buildStatus: string; failure?: string; checkoutRoot?: string; outcomes?: VerifyResult['outcomes'] },
): Promise<VerifierOutcome> {
  const result: VerifyResult = {
    schemaVersion: 1,
    runId: at.runId,
    attempt: at.attempt,
    continuation: at.continuation,
    digest: at.digest,
    buildId: outcome.buildId,
    buildStatus: outcome.buildStatus,
    checkoutRoot: outcome.checkoutRoot ?? '',
    outcomes: outcome.outcomes ?? [],
    ...(outcome.failure ? { failure: outcome.failure.slice(0, 500) } : {}),
    completedAt: new Date(deps.clock.now()).toISOString(),
  };
  // Written once: its creation resumes the worker through the dispatcher.
  await putArtifactIfAbsent(deps.store, key, VerifyResult, result);
  return { finished: key };
}

/** The build ended: read what it wrote (bounded, validated) and write the trusted result. */
async function finishBuild(deps: VerifierDeps, detail: z.infer<typeof BuildStateChange>['detail']): Promise<VerifierOutcome> {
  if (!TERMINAL.has(detail['build-status'])) return { ignored: `build ${detail['build-status']}` };
  const buildId = buildIdOf(detail['build-id']);
  // The event says which build; CodeBuild itself says what it was for and how it ended.
  const build = await deps.builds.get(buildId);
  const prefix = build?.environment?.environmentVariables?.find((v) => v.name === BUILD_PREFIX_VARIABLE)?.value;
  const parsed = prefix ? parseRunKey(`${prefix}result.json`) : undefined;
  if (!build || parsed?.kind !== 'verify-result' || !parsed.digest) return { ignored: 'not a verification build' };
  const keys = runKeys(parsed.owner, parsed.repo, parsed.runId).verify(parsed.digest);
  const started = await readArtifactIfPresent(deps.store, keys.started, StartedBuild);
  if (!started || started.buildId !== buildId) return { ignored: 'no build of this digest was started as this one' };
  const status = build.buildStatus ?? detail['build-status'];
  const body = await readBounded(deps, keys.buildResult, MAX_BUILD_RESULT_BYTES);
  const written = body ? BuildResult.safeParse(safeJson(body)) : undefined;
  if (!written?.success) {
    const failure = body ? 'the build wrote a result that is not valid' : 'the build ended before its commands ran or wrote no result';
    return writeResult(deps, keys.result, started, { buildId, buildStatus: status, failure });
  }
  return writeResult(deps, keys.result, started, {
    buildId,
    buildStatus: status,
    checkoutRoot: buildRoot(written.data),
    outcomes: trustedOutcomes(written.data, started.commands),
  });
}

function safeJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
}
