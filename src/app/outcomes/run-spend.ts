import type { RunKeys } from '../../core/artifacts/keys.js';
import { LedgerEntry } from '../../core/phases/ledger.js';
import { modelUsage } from '../../core/pipeline/model-budget.js';
import type { ArtifactStore } from '../../core/ports.js';

/**
 * The model spend of a run, every attempt, in micro-dollars (null when no call was priced): the
 * one place outcome figures and metrics read spend from. Today it is summed from the attempts'
 * ledgers (the model exchanges as the engine priced them); `keys` is given when the caller has
 * listed the run already.
 */
export async function runSpend(store: ArtifactStore, keys: RunKeys, listed?: readonly string[]): Promise<number | null> {
  const prefix = `${keys.prefix}attempts/`;
  const ledgerKeys = (listed ?? (await store.list(prefix))).filter(
    (key) => key.startsWith(prefix) && /^\d+\/ledger\/[^/]+\.json$/.test(key.slice(prefix.length)),
  );
  const entries: LedgerEntry[] = [];
  for (const key of ledgerKeys) {
    const object = await store.get(key);
    if (!object) continue;
    const parsed = LedgerEntry.safeParse(parseJson(object.body));
    if (parsed.success) entries.push(parsed.data);
  }
  return modelUsage(entries).total.costMicroUsd;
}

function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
}
