import { GitBoundaryError } from './git-boundary-error.js';
import type { PrCandidate } from './pr-candidate.js';
import { blobSha, computeTreeSha } from '../objects/tree-hash.js';

export interface BaseTreeFile {
  path: string;
  mode: string;
  oid: string;
}

/** Reads a candidate blob's bytes by id (the `changes/<sha>` artifacts); undefined when absent. */
export type ChangesReader = (blobSha: string) => Promise<Uint8Array | undefined>;

/**
 * Apply a candidate's files onto the base tree's file list and compute the resulting tree id
 * from the artifacts alone (each blob's bytes must hash to its id). Throws TREE_MISMATCH when
 * the result is not the candidate's `headTreeSha`.
 */
export async function rebuildTree(
  baseFiles: Iterable<BaseTreeFile>,
  candidate: Pick<PrCandidate, 'files' | 'headTreeSha'>,
  readChange: ChangesReader,
): Promise<{ treeSha: string; files: BaseTreeFile[] }> {
  const files = new Map<string, BaseTreeFile>();
  for (const f of baseFiles) files.set(f.path, { path: f.path, mode: f.mode, oid: f.oid });
  for (const f of candidate.files) {
    // Submodules are opaque: a gitlink of the base is neither replaced nor deleted.
    if (files.get(f.path)?.mode === '160000')
      throw new GitBoundaryError('SUBMODULE_CHANGE_NOT_PERMITTED', 'submodule pointers cannot change', { path: f.path });
    if ('deleted' in f) {
      if (!files.delete(f.path)) throw new GitBoundaryError('TREE_MISMATCH', 'the candidate deletes a path the base does not have', { path: f.path });
      continue;
    }
    const bytes = await readChange(f.blobSha);
    if (!bytes) throw new GitBoundaryError('BLOB_MISSING', 'a candidate blob is missing from the artifacts', { path: f.path, blobSha: f.blobSha });
    if (blobSha(bytes) !== f.blobSha)
      throw new GitBoundaryError('BLOB_MISMATCH', 'candidate blob bytes do not hash to their id', { path: f.path, blobSha: f.blobSha });
    // A file replacing a directory, or a directory entry under a file, is not a valid tree.
    for (const p of files.keys()) {
      if (p.startsWith(`${f.path}/`) || f.path.startsWith(`${p}/`))
        throw new GitBoundaryError('TREE_MISMATCH', 'a candidate file collides with a directory', { path: f.path, other: p });
    }
    files.set(f.path, { path: f.path, mode: f.mode, oid: f.blobSha });
  }
  const list = [...files.values()];
  const treeSha = computeTreeSha(list);
  if (treeSha !== candidate.headTreeSha)
    throw new GitBoundaryError('TREE_MISMATCH', 'the rebuilt tree is not the candidate head tree', { expected: candidate.headTreeSha, actual: treeSha });
  return { treeSha, files: list };
}
