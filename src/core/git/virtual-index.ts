import type { FsLike } from '../ports.js';
import type { TreeFile } from '../workspace/workspace.js';
import { commitTree } from './git-objects.js';
import { compareBytes } from '../objects/object-format.js';
import { treeFiles } from './tree-files.js';

/**
 * The staging area of the object-backed workspace: path -> (mode, blob id), starting as HEAD's
 * tree. Staging writes blobs to the object store and updates entries here; commits are built
 * from these entries as trees. isomorphic-git's own index is never used (sparse trap).
 */
export class VirtualIndex {
  private readonly entries = new Map<string, TreeFile>();

  constructor(files: Iterable<TreeFile> = []) {
    for (const f of files) this.entries.set(f.path, { ...f });
  }

  /** The index as HEAD's tree: nothing staged. */
  static async fromCommit(fs: FsLike, gitdir: string, commitSha: string): Promise<VirtualIndex> {
    return new VirtualIndex(await treeFiles(fs, gitdir, await commitTree(fs, gitdir, commitSha)));
  }

  get(path: string): TreeFile | undefined {
    return this.entries.get(path);
  }

  has(path: string): boolean {
    return this.entries.has(path);
  }

  set(file: TreeFile): void {
    this.entries.set(file.path, { ...file });
  }

  remove(path: string): void {
    this.entries.delete(path);
  }

  /** Entries sorted by path bytes, as git's index is. */
  files(): TreeFile[] {
    return [...this.entries.values()].sort((a, b) => compareBytes(a.path, b.path));
  }

  /** True when some tracked path lies under `dir/`. */
  hasUnder(dir: string): boolean {
    const prefix = `${dir}/`;
    for (const p of this.entries.keys()) if (p.startsWith(prefix)) return true;
    return false;
  }

  /** A deep copy (staging on a copy leaves this one alone). */
  clone(): VirtualIndex {
    return new VirtualIndex(this.entries.values());
  }
}
