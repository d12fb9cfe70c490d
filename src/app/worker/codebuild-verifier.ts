import { putArtifactIfAbsent, readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { AttemptSuspension } from '../../core/errors.js';
import { buildDigest, buildLimits, MAX_SOURCE_BYTES, VerifyBuildRequest, VerifyResult, verifyRunOf } from '../../core/runs/verify-build.js';
import { sha256Hex } from '../../core/util/digest.js';
import type { Verifier } from '../../core/verify/verifier.js';
import { zipCandidate } from './candidate-zip.js';
import type { VerifierScope } from './worker-deps.js';

/**
 * `agent.verify.runner: codebuild` in the Lambda worker (docs/architecture.md, "Verification").
 * The candidate, its commands and limits make one digest. When the verifier function's trusted
 * result for it exists under the run's `verify/<digest>/`, that is what the commands did.
 * Otherwise the worker writes the archive and the build request (each once: a retry or a resumed
 * invocation writes nothing new, so it starts no second build) and suspends the attempt: the
 * invocation ends, nothing is billed while the build runs, and the result's creation starts the
 * next invocation, which replays to this point and reads it.
 */
export function codeBuildVerifier(scope: VerifierScope): Verifier {
  return {
    runner: 'codebuild',
    available: async () => ({ ok: true }),
    async run(request) {
      const limits = buildLimits(request.limits);
      const archive = await zipCandidate(request.files(), MAX_SOURCE_BYTES);
      const sourceSha256 = sha256Hex(archive);
      const commands = request.commands.map(({ run, cwd, kind, source }) => ({ run, cwd, kind, source: source.slice(0, 500) }));
      const digest = buildDigest(sourceSha256, commands, limits);
      const result = await readArtifactIfPresent(scope.store, scope.keys.verify(digest).result, VerifyResult);
      if (result) return verifyRunOf(result, request.commands);
      const keys = scope.keys.attempt(scope.attempt);
      // The archive first: the request's creation starts the verifier, which reads it.
      await scope.store.putIfAbsent(keys.verifySource(digest), archive, { contentType: 'application/zip' });
      await putArtifactIfAbsent(scope.store, keys.verifyRequest(digest), VerifyBuildRequest, {
        schemaVersion: 1,
        runId: scope.runId,
        attempt: scope.attempt,
        continuation: scope.continuation + 1,
        digest,
        sourceSha256,
        sourceBytes: archive.length,
        commands,
        limits,
        requestedAt: scope.now(),
      });
      throw new AttemptSuspension('AWAITING_VERIFICATION', `waiting for the AWS CodeBuild build of ${digest.slice(0, 12)}`, { digest });
    },
  };
}
