import { describe, expect, it } from 'vitest';
import { IngestionError } from '../../../src/core/errors.js';
import { MAX_DEEPENS, MAX_HISTORY_DEPTH, onDemandObjects } from '../../../src/core/ingestion/on-demand.js';
import type { BlobFetchRequest, DeepenRequest, RepoSource } from '../../../src/core/ingestion/repo-source.js';

/** A source that records what it was asked and charges fixed bytes per transfer. */
function recordingSource(bytesPerCall: number) {
  const deepens: DeepenRequest[] = [];
  const blobs: BlobFetchRequest[] = [];
  const source = {
    info: async () => ({ owner: 'o', repo: 'r', displayUrl: 'x' }),
    resolveRef: async () => undefined,
    fetch: async () => ({ fetchedSha: 'a'.repeat(40), warnings: [] }),
    currentHead: async () => undefined,
    deepen: async (r: DeepenRequest) => (deepens.push(r), { depth: r.depth, bytes: bytesPerCall }),
    fetchBlobs: async (r: BlobFetchRequest) => (blobs.push(r), { bytes: bytesPerCall, objects: r.oids.length }),
  } satisfies RepoSource;
  return { source, deepens, blobs };
}

const base = { fs: {} as never, gitdir: '/g', ref: 'refs/heads/main', commitSha: 'a'.repeat(40), maxObjectBytes: 100 };

describe('objects fetched on demand', () => {
  it('passes what is left of the byte cap to each transfer, and refuses once it is spent', async () => {
    const { source, blobs } = recordingSource(400);
    const missing = onDemandObjects({ ...base, source, maxBytes: 1000, usedBytes: 300, blobless: true, depth: 1 });
    await missing.blobs?.(['b'.repeat(40)]);
    await missing.blobs?.(['c'.repeat(40)]);
    expect(blobs.map((b) => [b.maxBytes, b.maxObjectBytes])).toEqual([
      [700, 100],
      [300, 100],
    ]);
    const error = await missing.blobs?.(['d'.repeat(40)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IngestionError);
    expect((error as IngestionError).reason).toBe('REPO_TOO_LARGE');
  });

  it('offers no blob fetch after a complete fetch', () => {
    const { source } = recordingSource(1);
    expect(onDemandObjects({ ...base, source, maxBytes: 1000, usedBytes: 0, blobless: false, depth: 1 }).blobs).toBeUndefined();
  });

  it('bounds deepening: never past the maximum depth, never shallower, at most a few times a run', async () => {
    const { source, deepens } = recordingSource(10);
    const missing = onDemandObjects({ ...base, source, maxBytes: 1_000_000, usedBytes: 0, blobless: true, depth: 1 });
    expect(await missing.deepen?.(10_000)).toEqual({ depth: MAX_HISTORY_DEPTH, bytes: 10 });
    expect(deepens[0]).toMatchObject({ depth: MAX_HISTORY_DEPTH, filter: 'blob:none' });
    expect(missing.historyDepth()).toBe(MAX_HISTORY_DEPTH);
    expect((await missing.deepen?.(20))?.refused).toMatch(/already 500 commits deep/);

    const again = recordingSource(10);
    const bounded = onDemandObjects({ ...base, source: again.source, maxBytes: 1_000_000, usedBytes: 0, blobless: false, depth: 1 });
    for (let i = 0; i < MAX_DEEPENS; i++) await bounded.deepen?.(10 * (i + 2));
    expect((await bounded.deepen?.(400))?.refused).toMatch(new RegExp(`deepened ${MAX_DEEPENS} times`));
    expect(again.deepens).toHaveLength(MAX_DEEPENS);
  });
});
