import { mkdtemp, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArtifactError } from '../../../src/core/artifacts/artifact-error.js';
import { LocalArtifactStore } from '../../../src/app/local/local-artifact-store.js';
import { describeArtifactStoreContract } from './artifact-store-contract.js';

describeArtifactStoreContract('local directory', async () => {
  const root = await mkdtemp(join(tmpdir(), 'local-store-'));
  const store = new LocalArtifactStore(root);
  return {
    store,
    pagedStore: store,
    async seed(objects) {
      for (const { key, body } of objects) {
        const path = join(root, ...key.split('/'));
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, body);
      }
    },
    stop: () => rm(root, { recursive: true, force: true }),
  };
});

describe('LocalArtifactStore specifics', () => {
  const roots: string[] = [];
  afterAll(async () => {
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });
  const fresh = async (): Promise<{ root: string; store: LocalArtifactStore }> => {
    const root = await mkdtemp(join(tmpdir(), 'local-store-'));
    roots.push(root);
    return { root, store: new LocalArtifactStore(root) };
  };

  it('mirrors the key layout under its root and leaves no temp files behind', async () => {
    const { root, store } = await fresh();
    await store.put('runs/o/r/id/run.json', 'a');
    await store.putIfAbsent('runs/o/r/id/request.json', 'b');
    await store.putIfAbsent('runs/o/r/id/request.json', 'c');
    expect((await readdir(join(root, 'runs', 'o', 'r', 'id'))).sort()).toEqual(['request.json', 'run.json']);
  });

  it('refuses a list prefix that climbs out of the root', async () => {
    const { store } = await fresh();
    for (const prefix of ['../', 'a/../../', '/etc/']) {
      const error = await store.list(prefix).catch((e: unknown) => e);
      expect((error as ArtifactError).reason).toBe('ARTIFACT_KEY_INVALID');
    }
  });

  it('a key under an existing object (file where a directory would be) reads as absent', async () => {
    const { store } = await fresh();
    await store.put('limits/o/r/h', 'file');
    expect(await store.get('limits/o/r/h/run')).toBeUndefined();
  });
});
