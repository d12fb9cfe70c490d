import { createHash } from 'node:crypto';
import { compareBytes } from './object-format.js';

const encoder = new TextEncoder();

/** The header git hashes in front of an object's content to name it: `<type> <size>\0`. */
export function objectHeader(type: string, size: number): string {
  return `${type} ${size}\0`;
}

function hashObject(type: string, body: Uint8Array): string {
  return createHash('sha1')
    .update(encoder.encode(objectHeader(type, body.length)))
    .update(body)
    .digest('hex');
}

/** Git's blob id of `bytes`, computed without any object store. */
export function blobSha(bytes: Uint8Array): string {
  return hashObject('blob', bytes);
}

interface Node {
  dirs: Map<string, Node>;
  files: Map<string, { mode: string; oid: string }>;
}

/**
 * The root tree id of a flat file list, computed in memory (git's tree encoding: `<mode> <name>\0`
 * + 20-byte id, directories as mode 40000 sorted as `name/`). The publisher re-derives
 * `headTreeSha` with this, without writing anything.
 */
export function computeTreeSha(files: Iterable<{ path: string; mode: string; oid: string }>): string {
  const root: Node = { dirs: new Map(), files: new Map() };
  for (const f of files) {
    const segments = f.path.split('/');
    let node = root;
    for (const s of segments.slice(0, -1)) {
      if (!node.dirs.has(s)) node.dirs.set(s, { dirs: new Map(), files: new Map() });
      node = node.dirs.get(s)!;
    }
    node.files.set(segments[segments.length - 1], { mode: f.mode, oid: f.oid });
  }
  const hashNode = (node: Node): string => {
    const entries: { key: string; name: string; mode: string; oid: string }[] = [];
    for (const [name, child] of node.dirs) entries.push({ key: `${name}/`, name, mode: '40000', oid: hashNode(child) });
    for (const [name, f] of node.files) entries.push({ key: name, name, mode: f.mode, oid: f.oid });
    return treeEntriesSha(entries);
  };
  return hashNode(root);
}

/** Git's id of one tree object from its entries (`key` is the sort key: `name/` for directories). */
export function treeEntriesSha(input: { key: string; name: string; mode: string; oid: string }[]): string {
  const entries = [...input].sort((a, b) => compareBytes(a.key, b.key));
  {
    const parts: Uint8Array[] = [];
    for (const e of entries) {
      parts.push(encoder.encode(`${e.mode.replace(/^0+/, '')} ${e.name}\0`));
      parts.push(Uint8Array.from(e.oid.match(/../g)!.map((h) => parseInt(h, 16))));
    }
    const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      body.set(p, at);
      at += p.length;
    }
    return hashObject('tree', body);
  }
}
