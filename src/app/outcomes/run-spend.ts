import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import type { RunKeys } from '../../core/artifacts/keys.js';
import { SpendRecord } from '../../core/budget/spend.js';
import type { ArtifactStore } from '../../core/ports.js';

/**
 * The model spend of a run, every attempt, in micro-dollars: the task's spend record, which only
 * the trusted model caller writes (docs/architecture.md, "Spend"); null when the run made no
 * model call (or the record cannot be read). The one place outcome figures and metrics read spend from.
 */
export async function runSpend(store: ArtifactStore, keys: RunKeys): Promise<number | null> {
  const record = await readArtifactIfPresent(store, keys.spend, SpendRecord).catch(() => undefined);
  return record && record.calls > 0 ? record.costMicroUsd : null;
}
