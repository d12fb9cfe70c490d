import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpRepoSource } from '../../../src/app/git/http-repo-source.js';
import { LocalRepoSource } from '../../../src/app/git/local-repo-source.js';
import { IngestionError } from '../../../src/core/errors.js';
import type { RepoSource } from '../../../src/core/ingestion/repo-source.js';
import { initBare } from '../../fixtures/make-repo.js';
import { startGitHttpServer, type GitHttpServer } from '../../helpers/git-http-server.js';
import { makeIdenticalBlobsRepo, writeLoose, writeTree } from '../../reliability/hostile-fixtures.js';
import { commitTree, git } from '../../fixtures/make-repo.js';
import { ingest, policy, removeRoot, tempRoot } from './ingestion-harness.js';

/**
 * Packs whose objects inflate far beyond their compressed size. The byte cap counts compressed
 * bytes, so the inflated sizes are bounded separately, from each object's declared size.
 * (Peak memory is measured in `bench/bombs.bench.ts`, not here.)
 */
const MIB = 1024 * 1024;
let root: string;
let server: GitHttpServer;

beforeAll(async () => {
  root = tempRoot('inflate-bombs');
  // One blob of 64 MiB of zeros: about 64 KiB compressed.
  makeIdenticalBlobsRepo(join(root, 'zeros.git'), 1, 64);
  // Two different 3 MiB blobs: each under a 5 MiB limit, together over it.
  const two = join(root, 'two.git');
  initBare(two);
  const a = writeLoose(two, 'blob', Buffer.alloc(3 * MIB, 0));
  const b = writeLoose(two, 'blob', Buffer.alloc(3 * MIB, 1));
  commitTree(
    two,
    writeTree(two, [
      { mode: '100644', name: 'a.bin', oid: a },
      { mode: '100644', name: 'b.bin', oid: b },
    ]).toString('hex'),
  );
  git(['--git-dir', two, 'repack', '-a', '-d', '-q']);
  // A policy file of 8 MiB of zeros: read before the scan, so it must be sized before it is inflated.
  const policyBomb = join(root, 'policy-bomb.git');
  initBare(policyBomb);
  commitTree(
    policyBomb,
    writeTree(policyBomb, [{ mode: '100644', name: '.agent-policy.yaml', oid: writeLoose(policyBomb, 'blob', Buffer.alloc(8 * MIB, 0x20)) }]).toString('hex'),
  );
  git(['--git-dir', policyBomb, 'repack', '-a', '-d', '-q']);
  server = await startGitHttpServer({ root });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  removeRoot(root);
});

async function failure(source: RepoSource, limits: Parameters<typeof policy>[0]): Promise<IngestionError> {
  const { run } = await ingest(source, { policy: policy(limits) });
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IngestionError);
  return error as IngestionError;
}

const sources: [string, (repo: string) => RepoSource][] = [
  ['over smart HTTP', (repo) => new HttpRepoSource({ url: `${server.url}/${repo}` })],
  ['from a local repository', (repo) => new LocalRepoSource(join(root, repo))],
];

describe.each(sources)('inflate bombs %s', (_, source) => {
  it('a blob declaring more than the repository limit is FILE_TOO_LARGE, refused from its header', async () => {
    const error = await failure(source('zeros.git'), { maxRepoSizeMb: 1 });
    expect(error.reason).toBe('FILE_TOO_LARGE');
    expect(error.data).toMatchObject({ sizeBytes: 64 * MIB, limitBytes: MIB });
    expect((error.data.report as { status: string }).status).toBe('BLOCKED');
  });

  it('objects that together inflate past the repository limit are REPO_TOO_LARGE', async () => {
    const error = await failure(source('two.git'), { maxRepoSizeMb: 5 });
    expect(error.reason).toBe('REPO_TOO_LARGE');
    expect(error.data.limitBytes).toBe(5 * MIB);
  });

  it('a blob over the file limit but within the repository limit is only reported, and read lazily', async () => {
    const { run } = await ingest(source('zeros.git'), { policy: policy({ maxFileSizeMb: 1, maxRepoSizeMb: 128 }) });
    const result = await run;
    expect(result.status).toBe('READY_WITH_WARNINGS');
    expect(result.policyScan.counts.FILE_TOO_LARGE).toBe(1);
    expect(result.policyScan.totalBytes).toBe(64 * MIB + '# fixture\n'.length);
    expect(result.policyScan.counts.BINARY_FILE).toBe(1);
  });

  it('a policy file over the file limit is refused before it is read', async () => {
    let read: Uint8Array | undefined | 'not called' = 'not called';
    const { run } = await ingest(source('policy-bomb.git'), {
      policy: policy({ maxFileSizeMb: 1, maxRepoSizeMb: 64 }),
      resolvePolicy: async (readFile) => {
        read = await readFile('.agent-policy.yaml');
        return policy();
      },
    });
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(IngestionError);
    expect((error as IngestionError).reason).toBe('FILE_TOO_LARGE');
    expect((error as IngestionError).data).toMatchObject({ path: '.agent-policy.yaml', sizeBytes: 8 * MIB });
    expect(read).toBe('not called');
  });
});
