import { runKeys } from '../../core/artifacts/keys.js';
import type { RunTrigger } from '../../core/runs/run-key.js';

export { isGitHubOwner, isGitHubRepo, isRunId, parseRunTrigger, type RunTrigger } from '../../core/runs/run-key.js';

/** The key a trigger was parsed from (round trip through the one key builder). */
export function triggerKey(trigger: RunTrigger): string {
  const keys = runKeys(trigger.owner, trigger.repo, trigger.runId);
  if (trigger.continuation > 0) return keys.attempt(trigger.attempt).continue(trigger.continuation);
  return trigger.attempt === 1 ? keys.request : keys.attempt(trigger.attempt).request;
}
