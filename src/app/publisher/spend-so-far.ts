import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { SpendRecord } from '../../core/budget/spend.js';
import { spendSummary } from '../../core/phases/spend-line.js';
import type { ArtifactStore } from '../../core/ports.js';

/** A run's spend record (`spend.json`, written by model-call only) in one line for the progress comment; undefined before any model call. */
export async function spendSoFar(store: ArtifactStore, key: string): Promise<string | undefined> {
  const record = await readArtifactIfPresent(store, key, SpendRecord).catch(() => undefined);
  return record ? spendSummary(record) : undefined;
}
