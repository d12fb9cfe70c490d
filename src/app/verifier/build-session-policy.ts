import { runKeys } from '../../core/artifacts/keys.js';
import type { PolicyDocument } from '../dispatch/session-policy.js';

/**
 * The session policy of one verification build (VerifyBuildRole, assumed by the verifier
 * function with the run's tags): read the build's archive, write under its `build/` prefix,
 * nothing else. The role's own grants name the same keys through the tags; this pins the
 * digest a second time. Names are validated before (strict key parsing), so no `*` or `?`.
 */
export function buildSessionPolicy(bucket: string, scope: { owner: string; repo: string; runId: string; digest: string }): PolicyDocument {
  const keys = runKeys(scope.owner, scope.repo, scope.runId).verify(scope.digest);
  const arn = (key: string) => `arn:aws:s3:::${bucket}/${key}`;
  return {
    Version: '2012-10-17',
    Statement: [
      { Sid: 'ReadSource', Effect: 'Allow', Action: 's3:GetObject', Resource: arn(keys.source) },
      { Sid: 'WriteBuildResult', Effect: 'Allow', Action: 's3:PutObject', Resource: arn(`${keys.buildPrefix}*`) },
    ],
  };
}
