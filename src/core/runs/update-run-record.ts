import { ArtifactError } from '../artifacts/artifact-error.js';
import { parseArtifact, putArtifactIfAbsent, putArtifactIfMatch } from '../artifacts/artifact-io.js';
import type { ArtifactStore } from '../ports.js';
import { RunRecord } from './run-request.js';
import { RunStateError } from './run-state-error.js';

/** Enough for every writer of one run to land once, even when all of them race. */
export const RUN_RECORD_MAX_TRIES = 8;

/**
 * The only way `run.json` is written. `change` gets the stored record (undefined when there is
 * none yet) and returns the next one, or undefined to leave it as it is. The write is a
 * compare-and-swap (`putIfMatch` on the etag read, `putIfAbsent` when there was nothing); when
 * another writer got in between, the record is read again and `change` applied again to what
 * that writer left, so no writer's fields are lost. `change` must therefore be a pure function
 * of its argument. A stored record that fails its schema is handed over as undefined and
 * replaced (still by compare-and-swap on its etag). Returns what was written, or undefined when
 * `change` declined.
 */
export async function updateRunRecord(
  store: ArtifactStore,
  key: string,
  change: (current: RunRecord | undefined) => RunRecord | undefined,
  tries = RUN_RECORD_MAX_TRIES,
): Promise<RunRecord | undefined> {
  for (let i = 0; i < tries; i++) {
    const stored = await store.get(key);
    const next = change(stored ? readable(key, stored.body) : undefined);
    if (next === undefined) return undefined;
    const written = stored ? await putArtifactIfMatch(store, key, RunRecord, next, stored.etag) : await putArtifactIfAbsent(store, key, RunRecord, next);
    if (written) return RunRecord.parse(next);
  }
  throw new RunStateError('RUN_RECORD_CONTENDED', `${key} kept changing during ${tries} compare-and-swap tries`, { key, tries });
}

/** `attempts` with attempt `n`'s entry replaced (or added), in attempt order. */
export function withAttempt(attempts: RunRecord['attempts'], entry: RunRecord['attempts'][number]): RunRecord['attempts'] {
  return [...attempts.filter((a) => a.n !== entry.n), entry].sort((a, b) => a.n - b.n);
}

function readable(key: string, body: Uint8Array): RunRecord | undefined {
  try {
    return parseArtifact(key, RunRecord, body);
  } catch (error) {
    if (error instanceof ArtifactError && error.reason === 'ARTIFACT_INVALID') return undefined;
    throw error;
  }
}
