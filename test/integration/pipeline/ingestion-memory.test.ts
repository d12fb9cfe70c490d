import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ArtifactStore } from '../../../src/core/ports.js';
import type { RepoSource } from '../../../src/core/ingestion/repo-source.js';
import { LocalArtifactStore, MIGRATION_POLICY, MIGRATION_TASK, makeMavenBare, removeRoot, runOnce, startRun, tempRoot } from './pipeline-harness.js';

/**
 * `PipelineDeps.ingestionMemory` brackets ingestion exactly: entered before the source is asked
 * for anything, left once ingestion has ended (before its artifacts are written), whether it
 * succeeded or was refused, and never again for the phases after it.
 */
const roots: string[] = [];
afterAll(() => roots.forEach(removeRoot));

function watched(events: string[]) {
  const memory = { enter: () => void events.push('enter'), leave: () => void events.push('leave') };
  const wrapSource = (inner: RepoSource, fail?: Error): RepoSource => ({
    info: () => (events.push('source.info'), inner.info()),
    resolveRef: (ref) => (events.push('source.resolveRef'), inner.resolveRef(ref)),
    fetch: async (request) => {
      events.push('source.fetch');
      if (fail) throw fail;
      return inner.fetch(request);
    },
    currentHead: (ref) => inner.currentHead(ref),
  });
  const store = (inner: ArtifactStore): ArtifactStore => ({
    ...inner,
    get: inner.get.bind(inner),
    list: inner.list.bind(inner),
    delete: inner.delete.bind(inner),
    putIfAbsent: inner.putIfAbsent.bind(inner),
    putIfMatch: inner.putIfMatch.bind(inner),
    put: (key, body, options) => (events.push(`put ${key.split('/').pop()}`), inner.put(key, body, options)),
  });
  return { memory, wrapSource, store };
}

/** A Maven repository, a store that logs its writes into `events`, and attempt 1 of a run over it. */
async function setUp(name: string, runId: string) {
  const root = tempRoot(name);
  roots.push(root);
  const bare = join(root, 'orders.git');
  makeMavenBare(bare);
  const events: string[] = [];
  const w = watched(events);
  const store = w.store(new LocalArtifactStore(join(root, 'store')));
  const run = await startRun(store, bare, runId, MIGRATION_TASK);
  events.length = 0;
  return { events, w, options: { store, source: bare, ...run, policy: MIGRATION_POLICY, ingestionMemory: w.memory } };
}

describe('ingestion memory bracket', () => {
  it('is entered before the source is read and left before the ingestion artifacts are written, once per attempt', async () => {
    const { events, w, options } = await setUp('ingestion-memory', 'memory000001');
    const result = await runOnce({ ...options, wrapSource: (s) => w.wrapSource(s) });
    expect(result.status).toBe('COMPLETED');
    expect(events.filter((e) => e === 'enter' || e === 'leave')).toEqual(['enter', 'leave']);
    const enter = events.indexOf('enter');
    const leave = events.indexOf('leave');
    expect(events.findIndex((e) => e.startsWith('source.'))).toBeGreaterThan(enter);
    expect(events.lastIndexOf('source.fetch')).toBeLessThan(leave);
    expect(events.indexOf('put base-ref.json')).toBeGreaterThan(leave);
    expect(events.slice(enter, leave).filter((e) => e.startsWith('put '))).toEqual([]);
  }, 60_000);

  it('is left when ingestion is refused or fails', async () => {
    const { events, w, options } = await setUp('ingestion-memory-fail', 'memory000002');
    await expect(runOnce({ ...options, wrapSource: (s) => w.wrapSource(s, new Error('connection reset')) })).rejects.toThrow('connection reset');
    expect(events.filter((e) => e === 'enter' || e === 'leave')).toEqual(['enter', 'leave']);
    expect(events.indexOf('leave')).toBeGreaterThan(events.indexOf('source.fetch'));
  }, 60_000);
});
