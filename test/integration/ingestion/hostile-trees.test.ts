import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryFs } from '../../../src/app/local/memfs-adapter.js';
import { HttpRepoSource } from '../../../src/app/git/http-repo-source.js';
import { LocalRepoSource } from '../../../src/app/git/local-repo-source.js';
import { IngestionError } from '../../../src/core/errors.js';
import type { IngestionArtifact, PolicyScanArtifact } from '../../../src/core/ingestion/artifacts.js';
import { HOSTILE_TREES, makeRawTreeRepo } from '../../fixtures/make-repo.js';
import { startGitHttpServer, type GitHttpServer } from '../../helpers/git-http-server.js';
import { diskSnapshot, ingest, removeRoot, tempRoot } from './ingestion-harness.js';

let root: string;
let server: GitHttpServer;

beforeAll(async () => {
  root = tempRoot('ingest-hostile');
  for (const [name, spec] of Object.entries(HOSTILE_TREES)) makeRawTreeRepo(`${root}/${name}.git`, spec.entries);
  server = await startGitHttpServer({ root });
});

afterAll(async () => {
  await server.stop();
  removeRoot(root);
});

describe.each([
  ['http', (name: string) => new HttpRepoSource({ url: `${server.url}/${name}.git` })],
  ['local', (name: string) => new LocalRepoSource(`${root}/${name}.git`)],
])('hostile trees are refused with their reason (%s source)', (_kind, sourceFor) => {
  it.each(Object.entries(HOSTILE_TREES))('%s', async (name, spec) => {
    const before = diskSnapshot(root);
    const fs = createMemoryFs();
    const error = await (
      await ingest(sourceFor(name), { fs })
    ).run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(IngestionError);
    const failure = error as IngestionError;
    expect(failure.reason).toBe(spec.reason);
    expect((failure.data.report as IngestionArtifact).status).toBe('BLOCKED');
    const scan = failure.data.policyScan as PolicyScanArtifact;
    const finding = scan.findings.find((f) => f.code === spec.reason);
    expect(finding, JSON.stringify(scan.findings)).toBeDefined();
    if (spec.kind) {
      expect(finding?.data?.kind).toBe(spec.kind);
      expect(String(finding?.path)).toContain(spec.entry);
    } else expect(finding?.path).toBe(spec.entry);
    // nothing was written on disk, and nothing outside the object store in memory
    expect(diskSnapshot(root)).toEqual(before);
    const written = Object.keys(fs.volume.toJSON());
    expect(written.length).toBeGreaterThan(0);
    expect(written.every((p) => p.startsWith('/repo/.git/'))).toBe(true);
  });
});

it('reports where each symlink points', async () => {
  const error = (await (await ingest(new HttpRepoSource({ url: `${server.url}/symlinkEtcPasswd.git` }))).run.catch((e: unknown) => e)) as IngestionError;
  expect((error.data.policyScan as PolicyScanArtifact).symlinks).toEqual([{ path: 'passwd', target: '/etc/passwd', resolved: null, allowed: false }]);
});
