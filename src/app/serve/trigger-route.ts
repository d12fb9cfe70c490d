import { parseDeliveryKey } from '../../core/artifacts/keys.js';
import { parseRunKey, parseRunTrigger } from '../../core/runs/run-key.js';

export type ServeFunction = 'intake' | 'worker' | 'publisher';

/**
 * Which function a newly written key starts, as the bucket notifications route it in the
 * deployment: a stored webhook delivery to the intake, run triggers (request.json,
 * attempts/<n>/request.json, continue-<k>.json) to the worker, a candidate or a CI record to
 * the publisher, anything else to nobody.
 */
export function functionForKey(key: string): ServeFunction | undefined {
  if (parseDeliveryKey(key) !== undefined) return 'intake';
  if (parseRunTrigger(key)) return 'worker';
  const kind = parseRunKey(key)?.kind;
  return kind === 'pr-candidate' || kind === 'ci' ? 'publisher' : undefined;
}
