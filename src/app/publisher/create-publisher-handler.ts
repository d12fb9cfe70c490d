import { z } from 'zod';
import { decodeS3EventKey } from '../aws/s3-artifact-store.js';
import { runKeys } from '../../core/artifacts/keys.js';
import { parseCampaignCloseRequestKey } from '../../core/artifacts/campaign-keys.js';
import { parseRunKey } from '../../core/runs/run-key.js';
import { withLogScope } from '../logger.js';
import { cachedTokens } from '../tokens/cached-token-broker.js';
import { closeCampaignPullRequests, type CampaignCloseOutcome } from './campaign-close.js';
import { recordGate, relayProgress, type AttemptViewOutcome } from './attempt-progress.js';
import { updateVerificationFromCi, type CiUpdateOutcome } from './ci-feedback.js';
import { publishCandidate, type PublishDeps, type PublishOutcome } from './publish-candidate.js';
import { publishWhenDue, type RetryOutcome } from './publish-retry.js';

/** The part of an S3 notification the publisher reads; keys arrive URL-encoded (space as `+`). */
export const PublisherS3Event = z.object({
  Records: z.array(
    z.object({
      eventName: z.string(),
      s3: z.object({ object: z.object({ key: z.string().min(1) }) }),
    }),
  ),
});

export type PublisherResult =
  | { key: string; kind: 'candidate'; outcome: PublishOutcome }
  | { key: string; kind: 'ci'; outcome: CiUpdateOutcome }
  | { key: string; kind: 'retry'; outcome: RetryOutcome }
  | { key: string; kind: 'progress' | 'gate'; outcome: AttemptViewOutcome }
  | { key: string; kind: 'campaign-close'; outcome: CampaignCloseOutcome }
  | { key: string; kind: 'ignored' };

/**
 * The publisher function's body: one S3 `ObjectCreated` record at a time, `pr-candidate.json`
 * -> publishCandidate, `ci/*.json` -> updateVerificationFromCi (CI results, or a closed PR),
 * `attempts/<n>/progress.json` -> relayProgress (the worker's progress on the issue),
 * `attempts/<n>/approval-request.json` -> recordGate (the gate an approval covers),
 * `control/publish-retry.json` -> publishWhenDue (a publication GitHub rate-limited, re-driven),
 * `campaigns/.../close-requests/<id>.json` -> closeCampaignPullRequests (`/agent campaign close`).
 * Refusals are outcomes, not errors; only transient failures throw, so the Lambda retry
 * re-runs an idempotent publication.
 */
export function createPublisherHandler(given: PublishDeps): (event: unknown) => Promise<PublisherResult[]> {
  const deps: PublishDeps = { ...given, tokens: cachedTokens(given.tokens, given.clock) };
  return async (event) => {
    const parsed = PublisherS3Event.parse(event);
    const results: PublisherResult[] = [];
    for (const record of parsed.Records) {
      const key = decodeS3EventKey(record.s3.object.key);
      if (!record.eventName.startsWith('ObjectCreated')) {
        results.push({ key, kind: 'ignored' });
        continue;
      }
      if (parseCampaignCloseRequestKey(key)) {
        const outcome = await withLogScope({ campaignKey: key }, () => closeCampaignPullRequests(deps, key));
        results.push({ key, kind: 'campaign-close', outcome });
        continue;
      }
      const m = parseRunKey(key);
      // Lines about one run carry its id and repository, whichever client writes them.
      const scope = m ? { runId: m.runId, repository: `${m.owner}/${m.repo}` } : {};
      if (m?.kind === 'pr-candidate') {
        const outcome = await withLogScope(scope, () => publishCandidate({ ...deps, runKeys: runKeys(m.owner, m.repo, m.runId) }));
        results.push({ key, kind: 'candidate', outcome });
        continue;
      }
      if (m?.kind === 'publish-retry') {
        const outcome = await withLogScope(scope, () => publishWhenDue({ ...deps, runKeys: runKeys(m.owner, m.repo, m.runId) }));
        results.push({ key, kind: 'retry', outcome });
        continue;
      }
      if (m?.kind === 'ci') {
        const outcome = await withLogScope(scope, () => updateVerificationFromCi({ ...deps, runKeys: runKeys(m.owner, m.repo, m.runId), key }));
        results.push({ key, kind: 'ci', outcome });
        continue;
      }
      if ((m?.kind === 'progress' || m?.kind === 'approval-request') && m.attempt !== undefined) {
        const options = { ...deps, runKeys: runKeys(m.owner, m.repo, m.runId) };
        const attempt = m.attempt;
        const outcome = await withLogScope(scope, async () => {
          const shown = await (m.kind === 'progress' ? relayProgress(options, attempt) : recordGate(options, attempt));
          deps.logger.info(m.kind === 'progress' ? 'attempt progress' : 'approval gate', { attempt, ...shown });
          return shown;
        });
        results.push({ key, kind: m.kind === 'progress' ? 'progress' : 'gate', outcome });
        continue;
      }
      deps.logger.debug('object ignored by the publisher', { key });
      results.push({ key, kind: 'ignored' });
    }
    return results;
  };
}
