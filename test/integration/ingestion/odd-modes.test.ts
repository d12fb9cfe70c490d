import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRepoSource } from '../../../src/app/git/local-repo-source.js';
import { IngestionError } from '../../../src/core/errors.js';
import { commitTree, git, initBare, writeBlob } from '../../fixtures/make-repo.js';
import { ingest, removeRoot, tempRoot } from './ingestion-harness.js';

/**
 * Tree entries with modes git never writes but reads by their type bits (`40755` is a
 * directory, `120777` a symlink, `160644` a gitlink), and names that are not UTF-8. Built with
 * `hash-object --literally`, since git refuses to write them itself.
 */
type Row = { mode: string; name: string | Buffer; oid: string };

function rawTree(gitdir: string, rows: Row[]): string {
  const body = Buffer.concat(rows.map((r) => Buffer.concat([Buffer.from(`${r.mode} `), Buffer.from(r.name), Buffer.from([0]), Buffer.from(r.oid, 'hex')])));
  return git(['--git-dir', gitdir, 'hash-object', '-t', 'tree', '-w', '--literally', '--stdin'], { input: body });
}

let root: string;
const repos: Record<string, string> = {};

function repo(name: string, build: (gitdir: string, readme: Row) => Row[]): void {
  const gitdir = join(root, `${name}.git`);
  initBare(gitdir);
  commitTree(gitdir, rawTree(gitdir, build(gitdir, { mode: '100644', name: 'README.md', oid: writeBlob(gitdir, '# odd\n') })));
  repos[name] = gitdir;
}

beforeAll(() => {
  root = tempRoot('odd-modes');
  repo('dir40755HidesDotGit', (g, readme) => [
    readme,
    {
      mode: '40755',
      name: 'sub',
      oid: rawTree(g, [
        { mode: '40000', name: '.git', oid: rawTree(g, [{ mode: '100644', name: 'config', oid: writeBlob(g, '[core]\n\tfsmonitor = touch /tmp/x\n') }]) },
      ]),
    },
  ]);
  repo('dir0040000HidesDotDot', (g, readme) => [
    readme,
    {
      mode: '0040000',
      name: 'sub',
      oid: rawTree(g, [{ mode: '40000', name: '..', oid: rawTree(g, [{ mode: '100644', name: 'x', oid: writeBlob(g, 'x\n') }]) }]),
    },
  ]);
  repo('symlink120777', (g, readme) => [readme, { mode: '120777', name: 'passwd', oid: writeBlob(g, '/etc/passwd') }]);
  repo('gitlink160644', (g, readme) => [readme, { mode: '160644', name: 'vendor', oid: '0123456789abcdef0123456789abcdef01234567' }]);
  repo('leadingZeroFile', (g, readme) => [readme, { mode: '0100644', name: 'x.txt', oid: writeBlob(g, 'x\n') }]);
  repo('latin1Name', (g, readme) => [
    readme,
    { mode: '100644', name: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]), oid: writeBlob(g, 'x\n') },
  ]);
  repo('historic100664', (g, readme) => [readme, { mode: '100664', name: 'old.txt', oid: writeBlob(g, 'old\n') }]);
});

afterAll(() => removeRoot(root));

describe('tree entries with non-standard modes or non-UTF-8 names', () => {
  it.each([
    ['dir40755HidesDotGit', 'DOT_GIT', 'sub/.git'],
    ['dir0040000HidesDotDot', 'DOT_DOT', 'sub/..'],
    ['symlink120777', 'BAD_MODE', 'passwd'],
    ['gitlink160644', 'BAD_MODE', 'vendor'],
    ['leadingZeroFile', 'BAD_MODE', 'x.txt'],
    ['latin1Name', 'BAD_ENCODING', 'caf\ufffd.txt'],
  ])('%s is refused as %s at %s', async (name, kind, path) => {
    const { run } = await ingest(new LocalRepoSource(repos[name]));
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(IngestionError);
    expect((error as IngestionError).reason).toBe('HOSTILE_TREE_ENTRY');
    const findings = (error as IngestionError).data.findings as { path: string; data: { kind: string } }[];
    expect(findings).toContainEqual(expect.objectContaining({ path, data: expect.objectContaining({ kind }) }));
  });

  it('the historic 100664 mode reads as a plain file', async () => {
    const { run } = await ingest(new LocalRepoSource(repos.historic100664));
    const result = await run;
    expect(result.status).toBe('READY');
    expect(result.workspace.entry('old.txt')?.mode).toBe('100644');
    expect(await result.workspace.readText('old.txt')).toBe('old\n');
  });
});
