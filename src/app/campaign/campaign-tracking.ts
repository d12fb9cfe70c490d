import { putArtifactIfAbsent, readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { CampaignTracking } from '../../core/campaign/campaign-record.js';
import { renderTrackingComment, trackingMarker, withPullReadings } from '../../core/campaign/tracking-comment.js';
import { createCommentOnce, findMarkedComment } from '../github/create-once.js';
import type { WebhookSession } from '../webhook/webhook-session.js';
import { listItems, type LoadedCampaign } from './campaign-state.js';
import { refreshPullStates } from './pull-states.js';

/**
 * The one tracking comment on the home issue, rendered from the store (the record and every
 * item, and each pull request's CI and review as last read, `pull-states.ts`): created once
 * (found again by its marker when an earlier try posted it and failed before recording it),
 * then edited in place. Each render is whole, so the last edit shows every
 * item as the store had it then; the campaign's last step renders once more after every
 * repository ended; `force` (a refresh asked by `status` or a pull request's event) reads the
 * open pull requests again whatever the age of their last reading.
 */
export async function updateTracking(home: WebhookSession, campaign: LoadedCampaign, options: { force?: boolean } = {}): Promise<number> {
  const { store } = home.deps;
  const { record, keys } = campaign;
  const listed = await listItems(store, campaign);
  const items = withPullReadings(listed, await refreshPullStates(home.deps, campaign, listed, options));
  const closed = (await store.get(keys.closed)) !== undefined;
  const body = renderTrackingComment(record, items, { closed });
  const api = await home.api();
  const issue = record.home.issue;
  const tracked = await readArtifactIfPresent(store, keys.tracking, CampaignTracking);
  if (tracked) {
    await api.rest.issues.updateComment({ ...home.ref, comment_id: tracked.commentId, body });
    return tracked.commentId;
  }
  const where = { ...home.ref, issue, marker: trackingMarker(record.campaignId), botLogin: home.deps.botLogin };
  const found = await findMarkedComment(api, where);
  if (found) await api.rest.issues.updateComment({ ...home.ref, comment_id: found.id, body });
  const id = found?.id ?? (await createCommentOnce(api, { ...where, body })).id;
  await putArtifactIfAbsent(store, keys.tracking, CampaignTracking, { schemaVersion: 1, commentId: id });
  return id;
}
