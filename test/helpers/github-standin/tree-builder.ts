import type { TreeEntry, TreeEntryMode } from './git-objects.js';
import type { GitStore } from './git-store.js';

/** A 422 the API answers with GitHub's message. */
export class UnprocessableError extends Error {}

interface DirNode {
  kind: 'dir';
  baseSha?: string;
  children?: Map<string, Node>;
  dirty: boolean;
}
interface LeafNode {
  kind: 'leaf';
  mode: Exclude<TreeEntryMode, '40000'>;
  sha: string;
}
type Node = DirNode | LeafNode;

/** One entry of `POST git/trees`, as GitHub documents it. */
export interface TreeRequestEntry {
  path: string;
  mode: string;
  type?: string;
  sha?: string | null;
  content?: string;
}

const MODES: Record<string, TreeEntryMode> = {
  '100644': '100644',
  '100755': '100755',
  '120000': '120000',
  '160000': '160000',
  '040000': '40000',
  '40000': '40000',
};

function badComponent(part: string): boolean {
  return part === '' || part === '.' || part === '..' || part.toLowerCase() === '.git' || part.includes('\0');
}

/** The mode of a request entry, checked: a valid path, a known mode, a `type` that matches it. */
function checkedMode(entry: TreeRequestEntry): { parts: string[]; mode: TreeEntryMode; expectedType: string } {
  const parts = entry.path.split('/');
  if (parts.some(badComponent) || entry.path.startsWith('/')) {
    throw new UnprocessableError(`tree.path contains a malformed path component: ${entry.path}`);
  }
  const mode = MODES[entry.mode];
  if (!mode) throw new UnprocessableError(`tree.mode is not valid: ${entry.mode}`);
  const expectedType = mode === '40000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
  if (entry.type !== undefined && entry.type !== expectedType) throw new UnprocessableError(`tree.type does not match mode ${entry.mode}`);
  return { parts, mode, expectedType };
}

const deletes = (entry: TreeRequestEntry) => entry.sha === null && entry.content === undefined;

/** The object an entry points at: its inline content written as a blob, or its `sha` (checked unless trusted). */
async function entrySha(store: GitStore, entry: TreeRequestEntry, mode: TreeEntryMode, expectedType: string, trustShas: boolean): Promise<string> {
  if (entry.content !== undefined) {
    if (mode === '40000' || mode === '160000') throw new UnprocessableError('tree.content is only valid for blobs');
    return store.writeBlob(Buffer.from(entry.content, 'utf8'));
  }
  if (typeof entry.sha !== 'string') throw new UnprocessableError('Must supply either tree.sha or tree.content');
  if (mode !== '160000' && !trustShas && (await store.typeOf(entry.sha)) !== expectedType) {
    throw new UnprocessableError(`tree.sha ${entry.sha} is not a valid ${expectedType}`);
  }
  return entry.sha;
}

/** A tree being edited: directories load their base entries on first use and are marked dirty when touched. */
class TreeEdit {
  readonly root: DirNode;

  constructor(
    private readonly store: GitStore,
    baseTree: string | undefined,
  ) {
    this.root = baseTree ? { kind: 'dir', baseSha: baseTree, dirty: true } : { kind: 'dir', children: new Map(), dirty: true };
  }

  async children(dir: DirNode): Promise<Map<string, Node>> {
    if (!dir.children) {
      const list = dir.baseSha ? ((await this.store.readTree(dir.baseSha)) ?? []) : [];
      dir.children = new Map(
        list.map((e): [string, Node] => [
          e.name,
          e.mode === '40000' ? { kind: 'dir', baseSha: e.sha, dirty: false } : { kind: 'leaf', mode: e.mode, sha: e.sha },
        ]),
      );
    }
    return dir.children;
  }

  /** The entries of the directory `entry` lives in, creating missing directories on the way (a deletion needs them all). */
  async parentOf(entry: TreeRequestEntry, parts: string[]): Promise<Map<string, Node>> {
    let dir = this.root;
    for (const part of parts.slice(0, -1)) {
      const map = await this.children(dir);
      dir.dirty = true;
      let next = map.get(part);
      if (!next || next.kind !== 'dir') {
        if (deletes(entry)) throw new UnprocessableError(`tree.path ${entry.path} cannot be deleted: it does not exist`);
        next = { kind: 'dir', children: new Map(), dirty: true };
        map.set(part, next);
      }
      dir = next;
    }
    const map = await this.children(dir);
    dir.dirty = true;
    return map;
  }

  /** Writes the dirty directories bottom up; an emptied directory (not the root) disappears. */
  async write(dir: DirNode = this.root): Promise<string | undefined> {
    if (!dir.dirty && dir.baseSha) return dir.baseSha;
    const out: TreeEntry[] = [];
    for (const [name, node] of await this.children(dir)) {
      if (node.kind === 'leaf') out.push({ name, mode: node.mode, sha: node.sha });
      else {
        const sha = await this.write(node);
        if (sha) out.push({ name, mode: '40000', sha });
      }
    }
    if (out.length === 0 && dir !== this.root) return undefined;
    return this.store.writeTree(out);
  }
}

/**
 * Applies `POST git/trees` entries on top of an optional base tree, as GitHub does: nested paths
 * create or reuse intermediate trees, `sha: null` deletes (an error when nothing is there),
 * emptied directories disappear, untouched subtrees keep their SHAs.
 */
export async function buildTree(
  store: GitStore,
  baseTree: string | undefined,
  entries: TreeRequestEntry[],
  options: { trustShas?: boolean } = {},
): Promise<string> {
  if (baseTree !== undefined && (await store.typeOf(baseTree)) !== 'tree') {
    throw new UnprocessableError('base_tree is not a valid tree oid');
  }
  const edit = new TreeEdit(store, baseTree);
  for (const entry of entries) {
    const { parts, mode, expectedType } = checkedMode(entry);
    const map = await edit.parentOf(entry, parts);
    const name = parts[parts.length - 1];
    if (deletes(entry)) {
      if (!map.has(name)) throw new UnprocessableError(`tree.path ${entry.path} cannot be deleted: it does not exist`);
      map.delete(name);
      continue;
    }
    const sha = await entrySha(store, entry, mode, expectedType, options.trustShas ?? false);
    map.set(name, mode === '40000' ? { kind: 'dir', baseSha: sha, dirty: false } : { kind: 'leaf', mode, sha });
  }
  return (await edit.write()) as string;
}
