import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { commitTree, git, initBare } from '../fixtures/make-repo.js';

/**
 * Hostile repositories that need many objects or huge logical sizes, written as loose objects
 * in-process (one `git hash-object` per object would take too long), then packed by git.
 */

/** Write one loose object as git does (zlib of `type size\0body`); returns its binary SHA-1. */
export function writeLoose(gitdir: string, type: 'blob' | 'tree', body: Buffer): Buffer {
  const raw = Buffer.concat([Buffer.from(`${type} ${body.length}\u0000`), body]);
  const oid = createHash('sha1').update(raw).digest();
  const hex = oid.toString('hex');
  mkdirSync(join(gitdir, 'objects', hex.slice(0, 2)), { recursive: true });
  writeFileSync(join(gitdir, 'objects', hex.slice(0, 2), hex.slice(2)), deflateSync(raw, { level: 1 }));
  return oid;
}

type Row = { mode: '100644' | '40000'; name: string; oid: Buffer };

/** A tree object from rows, in git's order (trees sort as `name/`). */
export function writeTree(gitdir: string, rows: Row[]): Buffer {
  const key = (r: Row) => Buffer.from(r.mode === '40000' ? `${r.name}/` : r.name);
  const sorted = [...rows].sort((a, b) => Buffer.compare(key(a), key(b)));
  return writeLoose(gitdir, 'tree', Buffer.concat(sorted.map((r) => Buffer.concat([Buffer.from(`${r.mode} ${r.name}\u0000`), r.oid]))));
}

function finish(gitdir: string, rootRows: Row[]): string {
  const readme = writeLoose(gitdir, 'blob', Buffer.from('# fixture\n'));
  const root = writeTree(gitdir, [{ mode: '100644', name: 'README.md', oid: readme }, ...rootRows]);
  const commit = commitTree(gitdir, root.toString('hex'));
  git(['--git-dir', gitdir, 'repack', '-a', '-d', '-q']);
  return commit;
}

/**
 * "Zip bomb" of identical blobs: `files` entries (in directories of 50) that all point at one
 * blob of `blobMb` MiB of zeros. The pack holds one small object; the tree claims
 * files x blobMb MiB.
 */
export function makeIdenticalBlobsRepo(gitdir: string, files: number, blobMb: number): string {
  initBare(gitdir);
  const blob = writeLoose(gitdir, 'blob', Buffer.alloc(blobMb * 1024 * 1024));
  const dirs: Row[] = [];
  for (let d = 0; d * 50 < files; d++) {
    const rows: Row[] = [];
    for (let i = d * 50; i < Math.min(files, (d + 1) * 50); i++) rows.push({ mode: '100644', name: `blob${i}.bin`, oid: blob });
    dirs.push({ mode: '40000', name: `d${d}`, oid: writeTree(gitdir, rows) });
  }
  return finish(gitdir, dirs);
}

/**
 * Tree bomb: one tree of `fanout` copies of a small blob (or the empty tree), then `levels`
 * trees of `fanout` copies of the tree below: a handful of objects that spell
 * fanout^(levels+1) files (or fanout^levels directories).
 */
export function makeTreeBombRepo(gitdir: string, fanout: number, levels: number, leaves: 'files' | 'empty-trees' = 'files'): string {
  initBare(gitdir);
  const blob = writeLoose(gitdir, 'blob', Buffer.from('boom\n'));
  let oid =
    leaves === 'files'
      ? writeTree(
          gitdir,
          Array.from({ length: fanout }, (_, i) => ({ mode: '100644' as const, name: `f${i}.txt`, oid: blob })),
        )
      : writeTree(gitdir, []);
  for (let l = 0; l < levels; l++)
    oid = writeTree(
      gitdir,
      Array.from({ length: fanout }, (_, i) => ({ mode: '40000' as const, name: `t${i}`, oid })),
    );
  return finish(gitdir, [{ mode: '40000', name: 'bomb', oid }]);
}

/** `files` distinct small files, 500 per directory. */
export function makeManyFilesRepo(gitdir: string, files: number): string {
  initBare(gitdir);
  const dirs: Row[] = [];
  for (let d = 0; d * 500 < files; d++) {
    const rows: Row[] = [];
    for (let i = d * 500; i < Math.min(files, (d + 1) * 500); i++)
      rows.push({ mode: '100644', name: `f${i}.txt`, oid: writeLoose(gitdir, 'blob', Buffer.from(`file ${i}\n`)) });
    dirs.push({ mode: '40000', name: `d${d}`, oid: writeTree(gitdir, rows) });
  }
  return finish(gitdir, dirs);
}

/** `d/d/.../leaf.txt`, `depth` directories deep, next to a README. */
export function makeDeepChainRepo(gitdir: string, depth: number): string {
  initBare(gitdir);
  let oid = writeTree(gitdir, [{ mode: '100644', name: 'leaf.txt', oid: writeLoose(gitdir, 'blob', Buffer.from('deep\n')) }]);
  for (let i = 1; i < depth; i++) oid = writeTree(gitdir, [{ mode: '40000', name: 'd', oid }]);
  return finish(gitdir, [{ mode: '40000', name: 'd', oid }]);
}
