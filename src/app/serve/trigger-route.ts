import { parseDeliveryKey } from '../../core/artifacts/keys.js';
import { parseCampaignCloseRequestKey } from '../../core/artifacts/campaign-keys.js';
import { parseRunKey, parseRunTrigger, PUBLISHER_KINDS } from '../../core/runs/run-key.js';

export type ServeFunction = 'intake' | 'worker' | 'publisher';

/**
 * Which function a newly written key starts, as the bucket notifications route it in the
 * deployment: a stored webhook delivery to the intake, run triggers (request.json,
 * attempts/<n>/request.json, continue-<k>.json) to the worker, a candidate, a CI record, an
 * attempt's progress or approval request, a campaign's close request to the publisher, anything
 * else to nobody.
 */
export function functionForKey(key: string): ServeFunction | undefined {
  if (parseDeliveryKey(key) !== undefined) return 'intake';
  if (parseRunTrigger(key)) return 'worker';
  if (parseCampaignCloseRequestKey(key)) return 'publisher';
  const kind = parseRunKey(key)?.kind;
  return kind && PUBLISHER_KINDS.has(kind) ? 'publisher' : undefined;
}
