import type { FsLike } from '../ports.js';
import { readTreeFiles, type TreeFile, type Workspace } from '../workspace/workspace.js';
import { sortByPath } from '../util/path-order.js';

/**
 * Flat listings of whole trees, by tree id, per object store. A tree id names its content, so
 * a listing never goes stale; a run asks for the base and head trees several times (agent
 * branch, staging, status, candidate), and walking a 10k-file tree object by object costs
 * about a second each time. The store's own writes and the ingested workspace seed it.
 */
const listings = new WeakMap<FsLike, Map<string, readonly TreeFile[]>>();

function listingsOf(fs: FsLike): Map<string, readonly TreeFile[]> {
  let map = listings.get(fs);
  if (!map) listings.set(fs, (map = new Map()));
  return map;
}

/** Every file of a tree, sorted by path (code-unit order), as `readTreeFiles` returns them. */
export async function treeFiles(fs: FsLike, gitdir: string, treeOid: string): Promise<TreeFile[]> {
  const known = listingsOf(fs).get(treeOid);
  if (known) return known.map((f) => ({ ...f }));
  const files = await readTreeFiles(fs, gitdir, treeOid);
  rememberTreeFiles(fs, treeOid, files);
  return files;
}

/** Record the listing of a tree the caller built or read from exactly these files. */
export function rememberTreeFiles(fs: FsLike, treeOid: string, files: Iterable<TreeFile>): void {
  const copy = [...files].map((f) => Object.freeze({ path: f.path, mode: f.mode, oid: f.oid }));
  sortByPath(copy, (f) => f.path);
  listingsOf(fs).set(treeOid, copy);
}

/**
 * Seed the listing of a workspace's base tree from its view, which ingestion built from that
 * tree. Only a clean workspace shows exactly the base tree; otherwise nothing is recorded.
 */
export function rememberBaseTree(workspace: Workspace): void {
  if (workspace.changes().length > 0) return;
  const files: TreeFile[] = [];
  for (const path of workspace.paths()) {
    const entry = workspace.baseEntry(path);
    if (entry) files.push(entry);
  }
  rememberTreeFiles(workspace.fs, workspace.baseTreeSha, files);
}
