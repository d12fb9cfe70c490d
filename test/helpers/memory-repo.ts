import git from 'isomorphic-git';
import { createMemoryFs } from '../../src/app/local/memfs-adapter.js';
import type { FsLike } from '../../src/core/ports.js';
import { openWorkspace, type FileMode, type ObjectWorkspace } from '../../src/core/workspace/workspace.js';

/** One file of a test repository: text, bytes, a symlink, or content with an explicit git mode (for 160000, content is the submodule commit SHA). */
export type MemoryRepoFile = string | Uint8Array | { symlink: string } | { content: string | Uint8Array; mode: FileMode };

export interface MemoryRepo {
  fs: FsLike;
  gitdir: string;
  commitSha: string;
  treeSha: string;
  workspace: ObjectWorkspace;
}

/** Fixed identity and time so that commit SHAs are the same on every run. */
export const MEMORY_REPO_AUTHOR = { name: 'Test Author', email: 'test@example.invalid', timestamp: 1_700_000_000, timezoneOffset: 0 };

const encoder = new TextEncoder();

interface DirNode {
  dirs: Map<string, DirNode>;
  files: Map<string, { mode: FileMode; oid: string }>;
}

/**
 * A git repository in a fresh in-memory file system with one commit holding `files`
 * (paths relative to the repository root, `/`-separated), and a workspace over it.
 * Nothing is checked out: the objects are written directly, as a fetched repository would have them.
 */
export async function createMemoryRepo(files: Record<string, MemoryRepoFile>, options: { message?: string } = {}): Promise<MemoryRepo> {
  const fs = createMemoryFs();
  const dir = '/repo';
  const gitdir = `${dir}/.git`;
  await git.init({ fs, dir, defaultBranch: 'main' });

  const root: DirNode = { dirs: new Map(), files: new Map() };
  for (const path of Object.keys(files).sort()) {
    const spec = files[path];
    let mode: FileMode = '100644';
    let bytes: Uint8Array;
    if (typeof spec === 'string') bytes = encoder.encode(spec);
    else if (spec instanceof Uint8Array) bytes = spec;
    else if ('symlink' in spec) {
      mode = '120000';
      bytes = encoder.encode(spec.symlink);
    } else {
      mode = spec.mode;
      bytes = typeof spec.content === 'string' ? encoder.encode(spec.content) : spec.content;
    }
    // A gitlink's "content" is the submodule commit SHA; it is referenced, not stored.
    const oid = mode === '160000' ? new TextDecoder().decode(bytes).trim() : await git.writeBlob({ fs, gitdir, blob: bytes });
    const segments = path.split('/');
    let node = root;
    for (const segment of segments.slice(0, -1)) {
      let child = node.dirs.get(segment);
      if (!child) {
        child = { dirs: new Map(), files: new Map() };
        node.dirs.set(segment, child);
      }
      node = child;
    }
    node.files.set(segments[segments.length - 1], { mode, oid });
  }

  const writeDir = async (node: DirNode): Promise<string> => {
    const tree: { mode: string; path: string; oid: string; type: 'blob' | 'tree' | 'commit' }[] = [];
    for (const [name, child] of node.dirs) tree.push({ mode: '040000', path: name, oid: await writeDir(child), type: 'tree' });
    for (const [name, file] of node.files) tree.push({ mode: file.mode, path: name, oid: file.oid, type: file.mode === '160000' ? 'commit' : 'blob' });
    return git.writeTree({ fs, gitdir, tree });
  };
  const treeSha = await writeDir(root);
  const commitSha = await git.writeCommit({
    fs,
    gitdir,
    commit: { message: options.message ?? 'initial\n', tree: treeSha, parent: [], author: MEMORY_REPO_AUTHOR, committer: MEMORY_REPO_AUTHOR },
  });
  await git.writeRef({ fs, gitdir, ref: 'refs/heads/main', value: commitSha, force: true });
  const workspace = await openWorkspace({ fs, gitdir, commitSha });
  return { fs, gitdir, commitSha, treeSha, workspace };
}
