import { IngestionError } from '../../core/errors.js';
import { parseTreeEntries } from '../../core/ingestion/tree-entries.js';
import { spawnGit } from './run-git.js';

export interface TreeBounds {
  maxFileCount: number;
  maxPathDepth: number;
}

interface Measure {
  files: number;
  directories: number;
  /** Path components of the deepest entry below (1 for a tree of files). */
  height: number;
}

/**
 * Refuse a tree that spells more paths, or deeper ones, than the limits allow, without listing
 * them: subtrees are measured once per object and the counts added up, so a tree bomb (ten
 * shared subtrees per level: a few objects, 10^7 paths and more) costs a read per distinct
 * tree. Git commands that expand every path (`status` against such a HEAD, say) must only run
 * after this. FILE_COUNT_EXCEEDED or HOSTILE_TREE_ENTRY (TOO_DEEP), as the policy scan reports.
 */
export async function checkTreeBounds(gitdir: string, treeish: string, bounds: TreeBounds): Promise<void> {
  const reader = new BatchReader(gitdir);
  const memo = new Map<string, Measure>();
  const over = (what: string, count: number): never => {
    throw new IngestionError(
      'FILE_COUNT_EXCEEDED',
      `${treeish} has more than ${bounds.maxFileCount} ${what}, the limit is ${bounds.maxFileCount} (counting stopped there)`,
      {
        treeish,
        limit: bounds.maxFileCount,
        counted: count,
        complete: false,
      },
    );
  };
  const measure = async (oid: string, depth: number, path: string): Promise<Measure> => {
    const known = memo.get(oid);
    if (known && depth + known.height <= bounds.maxPathDepth) return known;
    const object = await reader.read(oid);
    if (object.type !== 'tree') throw new Error(`expected a tree at ${path || '/'}: ${oid}`);
    const total: Measure = { files: 0, directories: 0, height: 0 };
    for (const entry of parseTreeEntries(object.content)) {
      const child = path ? `${path}/${entry.name}` : entry.name;
      if (depth + 1 > bounds.maxPathDepth) {
        throw new IngestionError('HOSTILE_TREE_ENTRY', `${treeish} has paths deeper than ${bounds.maxPathDepth} components`, {
          treeish,
          path: child,
          kind: 'TOO_DEEP',
          limit: bounds.maxPathDepth,
        });
      }
      if (entry.mode === '040000') {
        const below = await measure(entry.oid, depth + 1, child);
        total.files += below.files;
        total.directories += below.directories + 1;
        total.height = Math.max(total.height, below.height + 1);
      } else {
        total.files += 1;
        total.height = Math.max(total.height, 1);
      }
      if (total.files > bounds.maxFileCount) over('files', total.files);
      if (total.directories > bounds.maxFileCount) over('directories', total.directories);
    }
    memo.set(oid, total);
    return total;
  };
  try {
    await measure(`${treeish}^{tree}`, 0, '');
  } finally {
    reader.close();
  }
}

/** `git cat-file --batch`: one child for every object read. */
class BatchReader {
  private readonly child;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting?: () => void;
  private ended = false;

  constructor(gitdir: string) {
    this.child = spawnGit(['--git-dir', gitdir, 'cat-file', '--batch']);
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.byteLength === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      this.waiting?.();
    });
    this.child.stdout.on('end', () => {
      this.ended = true;
      this.waiting?.();
    });
    this.child.on('error', () => {
      this.ended = true;
      this.waiting?.();
    });
  }

  async read(spec: string): Promise<{ type: string; content: Buffer }> {
    this.child.stdin.write(`${spec}\n`);
    const header = await this.take((b) => {
      const nl = b.indexOf(0x0a);
      return nl < 0 ? undefined : nl + 1;
    });
    const [, type, size] = header.toString('utf8').trim().split(' ');
    if (type === undefined || size === undefined) throw new Error(`cannot read ${spec}: ${header.toString('utf8').trim()}`);
    const length = Number(size);
    const body = await this.take((b) => (b.byteLength >= length + 1 ? length + 1 : undefined));
    return { type, content: body.subarray(0, length) };
  }

  close(): void {
    this.child.stdin.end();
    this.child.kill();
  }

  private async take(complete: (buffered: Buffer) => number | undefined): Promise<Buffer> {
    for (;;) {
      const end = complete(this.buffered);
      if (end !== undefined) {
        const out = this.buffered.subarray(0, end);
        this.buffered = this.buffered.subarray(end);
        return out;
      }
      if (this.ended) throw new Error('git cat-file ended early');
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = undefined;
    }
  }
}
