import type { ArtifactStore } from '../ports.js';
import type { RunRecord } from './run-request.js';
import { transition, type RunWriter } from './run-transitions.js';
import { updateRunRecord } from './update-run-record.js';

/**
 * How a trusted writer changes `run.json`: `change` proposes the next record from the stored
 * one (undefined to leave it), `transition` decides whether `by` may make that move, and the
 * compare-and-swap of `updateRunRecord` writes it (re-deciding on what a racing writer left).
 */
export function writeRunTransition(
  store: ArtifactStore,
  key: string,
  by: RunWriter,
  change: (current: RunRecord | undefined) => RunRecord | undefined,
): Promise<RunRecord | undefined> {
  return updateRunRecord(store, key, (current) => {
    const next = change(current);
    return next && transition(current, next, { by });
  });
}
