import git from 'isomorphic-git';
import { rememberTreeFiles } from './tree-files.js';
import { compareBytes } from '../objects/object-format.js';
import { treeEntriesSha } from '../objects/tree-hash.js';
import type { FsLike } from '../ports.js';
import type { FileMode, TreeFile } from '../workspace/workspace.js';

/** Git's blob id of `bytes` ("blob <len>\0" framing), without writing anything. */
export async function hashBlobBytes(bytes: Uint8Array): Promise<string> {
  const { oid } = await git.hashBlob({ object: bytes });
  return oid;
}

interface DirNode {
  dirs: Map<string, DirNode>;
  files: Map<string, { mode: FileMode; oid: string }>;
}

/**
 * Write the nested trees for a flat list of files and return the root tree id. Entries are
 * ordered as git orders them (a directory sorts as `name/`); blobs must already be stored.
 */
export async function writeTreeFromFiles(
  fs: FsLike,
  gitdir: string,
  files: Iterable<TreeFile>,
  options: { changedPaths?: Iterable<string> } = {},
): Promise<string> {
  // With the changed paths known, directories with no change below them are the base's own
  // trees, already in the object store: their ids are computed in memory, not written again.
  let touched: Set<string> | undefined;
  if (options.changedPaths) {
    touched = new Set(['']);
    for (const path of options.changedPaths) {
      const segments = path.split('/');
      for (let i = 1; i < segments.length; i++) touched.add(segments.slice(0, i).join('/'));
    }
  }
  const list = [...files];
  const root: DirNode = { dirs: new Map(), files: new Map() };
  for (const file of list) {
    const segments = file.path.split('/');
    let node = root;
    for (const segment of segments.slice(0, -1)) {
      let child = node.dirs.get(segment);
      if (!child) {
        child = { dirs: new Map(), files: new Map() };
        node.dirs.set(segment, child);
      }
      node = child;
    }
    node.files.set(segments[segments.length - 1], { mode: file.mode, oid: file.oid });
  }
  const write = async (node: DirNode, dir: string): Promise<string> => {
    const entries: { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit'; key: string }[] = [];
    for (const [name, child] of node.dirs)
      entries.push({ mode: '040000', path: name, oid: await write(child, dir ? `${dir}/${name}` : name), type: 'tree', key: `${name}/` });
    for (const [name, file] of node.files)
      entries.push({ mode: file.mode, path: name, oid: file.oid, type: file.mode === '160000' ? 'commit' : 'blob', key: name });
    entries.sort((a, b) => compareBytes(a.key, b.key));
    if (touched && !touched.has(dir)) return treeEntriesSha(entries.map((e) => ({ key: e.key, name: e.path, mode: e.mode, oid: e.oid })));
    return git.writeTree({ fs, gitdir, tree: entries.map(({ key: _key, ...e }) => e) });
  };
  const treeSha = await write(root, '');
  rememberTreeFiles(fs, treeSha, list);
  return treeSha;
}

/** What HEAD of the in-memory gitdir says: a branch (symbolic) or a detached commit. */
export interface HeadState {
  /** Short branch name when HEAD is symbolic (e.g. `agent/local/rabc`). */
  branch?: string;
  /** Commit HEAD resolves to; undefined on an unborn branch. */
  sha?: string;
  detached: boolean;
}

/** Read HEAD; a gitdir without HEAD counts as detached at `fallbackSha`. */
export async function readHead(fs: FsLike, gitdir: string, fallbackSha?: string): Promise<HeadState> {
  let target: string;
  try {
    target = (await git.resolveRef({ fs, gitdir, ref: 'HEAD', depth: 1 })).replace(/^ref: /, '').trim();
  } catch {
    return { sha: fallbackSha, detached: true };
  }
  if (!target.startsWith('refs/')) return { sha: target, detached: true };
  const branch = target.startsWith('refs/heads/') ? target.slice('refs/heads/'.length) : target;
  try {
    const sha = await git.resolveRef({ fs, gitdir, ref: target });
    return { branch, sha, detached: false };
  } catch {
    return { branch, detached: false };
  }
}

/** The tree id of a commit. */
export async function commitTree(fs: FsLike, gitdir: string, commitSha: string): Promise<string> {
  const { commit } = await git.readCommit({ fs, gitdir, oid: commitSha });
  return commit.tree;
}
