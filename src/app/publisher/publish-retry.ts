import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { PublishRetry } from '../../core/runs/publish-retry.js';
import { publishCandidate, type PublishOptions, type PublishOutcome } from './publish-candidate.js';

export type RetryOutcome = PublishOutcome | { kind: 'not-due'; why: string };

/**
 * `control/publish-retry.json` written: by the sweeper re-driving a publication (publish now), or
 * by the publisher itself recording a rate limit (not yet: `notBefore` is ahead). Publication
 * itself finds before it creates, so a retry never makes a second branch or pull request.
 */
export async function publishWhenDue(options: PublishOptions): Promise<RetryOutcome> {
  const record = await readArtifactIfPresent(options.store, options.runKeys.publishRetry, PublishRetry);
  if (!record) return { kind: 'not-due', why: 'no retry record' };
  if (record.endedAt) return { kind: 'not-due', why: 'the retries ended' };
  if (Date.parse(record.notBefore) > options.clock.now()) return { kind: 'not-due', why: `not before ${record.notBefore}` };
  return publishCandidate(options);
}
