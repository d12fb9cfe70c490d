import git from 'isomorphic-git';
import type { FsLike } from '../ports.js';
import type { FileMode, Workspace } from '../workspace/workspace.js';
import { commitTree, hashBlobBytes } from './git-objects.js';
import { treeFiles } from './tree-files.js';
import type { VirtualIndex } from './virtual-index.js';

/** One file on one side of a comparison. */
export interface SideFile {
  mode: FileMode;
  oid: string;
}

/**
 * One side of a comparison (a commit's tree, the virtual index, or the workspace view): the
 * files by path and a way to read their bytes. Diff and status are written once against this.
 */
export interface TreeSide {
  files: Map<string, SideFile>;
  read(path: string): Promise<Uint8Array>;
}

/** A commit's tree as a side. */
export async function commitSide(fs: FsLike, gitdir: string, commitSha: string): Promise<TreeSide> {
  return treeSide(fs, gitdir, await commitTree(fs, gitdir, commitSha));
}

/** A tree as a side. */
export async function treeSide(fs: FsLike, gitdir: string, treeSha: string): Promise<TreeSide> {
  const files = new Map<string, SideFile>();
  for (const f of await treeFiles(fs, gitdir, treeSha)) files.set(f.path, { mode: f.mode, oid: f.oid });
  return objectSide(fs, gitdir, files);
}

/** The virtual index as a side. */
export function indexSide(fs: FsLike, gitdir: string, index: VirtualIndex): TreeSide {
  const files = new Map<string, SideFile>();
  for (const f of index.files()) files.set(f.path, { mode: f.mode, oid: f.oid });
  return objectSide(fs, gitdir, files);
}

function objectSide(fs: FsLike, gitdir: string, files: Map<string, SideFile>): TreeSide {
  return {
    files,
    read: async (path) => {
      const f = files.get(path);
      if (!f) throw new Error(`not on this side: ${path}`);
      return (await git.readBlob({ fs, gitdir, oid: f.oid })).blob;
    },
  };
}

/**
 * The workspace view (base tree + overlay) as a side. Overlay files are hashed, not stored:
 * reading the status or a diff writes nothing.
 */
export async function workspaceSide(workspace: Workspace): Promise<TreeSide> {
  const files = new Map<string, SideFile>();
  for (const path of workspace.paths()) {
    const entry = workspace.entry(path);
    if (!entry) continue;
    if (entry.oid && !entry.changed) files.set(path, { mode: entry.mode, oid: entry.oid });
    else files.set(path, { mode: entry.mode, oid: await hashBlobBytes(await workspace.read(path)) });
  }
  return { files, read: (path) => workspace.read(path) };
}
