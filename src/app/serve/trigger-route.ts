import { parseRunKey, parseRunTrigger } from '../../core/runs/run-key.js';

export type ServeFunction = 'worker' | 'publisher';

/**
 * Which function a newly written key starts, as the bucket notifications route it in the
 * deployment: run triggers (request.json, attempts/<n>/request.json, continue-<k>.json) go to
 * the worker, a candidate or a CI record to the publisher, anything else to nobody.
 */
export function functionForKey(key: string): ServeFunction | undefined {
  if (parseRunTrigger(key)) return 'worker';
  const kind = parseRunKey(key)?.kind;
  return kind === 'pr-candidate' || kind === 'ci' ? 'publisher' : undefined;
}
