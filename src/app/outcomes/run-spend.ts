import type { RunKeys } from '../../core/artifacts/keys.js';
import { SpendRecord } from '../../core/budget/spend.js';
import type { ArtifactStore } from '../../core/ports.js';

/**
 * The model spend of a run, every attempt, in micro-dollars: the task's spend record, which only
 * the trusted model caller writes (docs/architecture.md, "Spend"); null when the run made no
 * model call. The one place outcome figures and metrics read spend from.
 */
export async function runSpend(store: ArtifactStore, keys: RunKeys): Promise<number | null> {
  const object = await store.get(keys.spend);
  if (!object) return null;
  const parsed = SpendRecord.safeParse(parseJson(object.body));
  return parsed.success && parsed.data.calls > 0 ? parsed.data.costMicroUsd : null;
}

function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
}
