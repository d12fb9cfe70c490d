import { createHash } from 'node:crypto';

/**
 * Git object encoding, computed in JavaScript exactly as git does, so the stand-in can state a
 * SHA before native git stores the object (and then check that git agrees).
 */

export type TreeEntryMode = '100644' | '100755' | '120000' | '160000' | '40000';
export interface TreeEntry {
  name: string;
  mode: TreeEntryMode;
  sha: string;
}

export function typeOfMode(mode: TreeEntryMode): 'blob' | 'tree' | 'commit' {
  if (mode === '40000') return 'tree';
  if (mode === '160000') return 'commit';
  return 'blob';
}

/** `<type> <len>\0<bytes>`: the framing git hashes and stores. */
export function frameObject(type: 'blob' | 'tree' | 'commit', body: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
}

export function objectSha(type: 'blob' | 'tree' | 'commit', body: Uint8Array): string {
  return createHash('sha1').update(frameObject(type, body)).digest('hex');
}

/** Git's tree order: byte order of names, where a directory compares as `name/`. */
export function compareTreeEntries(a: TreeEntry, b: TreeEntry): number {
  const ka = Buffer.from(a.mode === '40000' ? `${a.name}/` : a.name);
  const kb = Buffer.from(b.mode === '40000' ? `${b.name}/` : b.name);
  return Buffer.compare(ka, kb);
}

/** The bytes of a tree object: entries sorted as git sorts them, `<mode> <name>\0<20 bytes>`. */
export function encodeTree(entries: TreeEntry[]): Buffer {
  const sorted = [...entries].sort(compareTreeEntries);
  return Buffer.concat(sorted.flatMap((e) => [Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.sha, 'hex')]));
}

/** Parses a raw tree object. */
export function decodeTree(bytes: Buffer): TreeEntry[] {
  const out: TreeEntry[] = [];
  let i = 0;
  while (i < bytes.length) {
    const space = bytes.indexOf(0x20, i);
    const nul = bytes.indexOf(0, space);
    const mode = bytes.subarray(i, space).toString() as TreeEntryMode;
    const name = bytes.subarray(space + 1, nul).toString();
    const sha = bytes.subarray(nul + 1, nul + 21).toString('hex');
    out.push({ name, mode, sha });
    i = nul + 21;
  }
  return out;
}

export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Git's offset form, e.g. `+0000`, `-0130`. */
  tz: string;
}

export interface CommitFields {
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  message: string;
}

function formatSignature(s: Signature): string {
  return `${s.name} <${s.email}> ${s.timestamp} ${s.tz}`;
}

/** The bytes of a commit object (no signature header). The message is kept byte for byte. */
export function encodeCommit(c: CommitFields): Buffer {
  const lines = [`tree ${c.tree}`, ...c.parents.map((p) => `parent ${p}`)];
  lines.push(`author ${formatSignature(c.author)}`, `committer ${formatSignature(c.committer)}`);
  return Buffer.from(`${lines.join('\n')}\n\n${c.message}`);
}

const SIGNATURE_LINE = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/;

/** Parses a raw commit object (headers git writes; unknown headers such as gpgsig are skipped). */
export function decodeCommit(bytes: Buffer): CommitFields {
  const text = bytes.toString();
  const split = text.indexOf('\n\n');
  const head = split === -1 ? text : text.slice(0, split);
  const message = split === -1 ? '' : text.slice(split + 2);
  const fields: Partial<CommitFields> & { parents: string[] } = { parents: [] };
  for (const line of head.split('\n')) {
    if (line.startsWith(' ')) continue;
    const at = line.indexOf(' ');
    const key = line.slice(0, at);
    const value = line.slice(at + 1);
    if (key === 'tree') fields.tree = value;
    else if (key === 'parent') fields.parents.push(value);
    else if (key === 'author' || key === 'committer') {
      const m = SIGNATURE_LINE.exec(value);
      if (m) fields[key] = { name: m[1], email: m[2], timestamp: Number(m[3]), tz: m[4] };
    }
  }
  if (!fields.tree || !fields.author || !fields.committer) throw new Error('malformed commit object');
  return { tree: fields.tree, parents: fields.parents, author: fields.author, committer: fields.committer, message };
}

/** ISO 8601 (`Z` or `±hh:mm`) -> git signature time. */
export function parseIsoDate(iso: string): { timestamp: number; tz: string } {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`invalid date: ${iso}`);
  const m = /([+-])(\d{2}):?(\d{2})$/.exec(iso);
  const tz = m && !iso.endsWith('Z') ? `${m[1]}${m[2]}${m[3]}` : '+0000';
  return { timestamp: Math.floor(ms / 1000), tz };
}

/** Git signature time -> ISO 8601 in UTC without milliseconds, as GitHub prints dates. */
export function formatIsoDate(timestamp: number): string {
  return new Date(timestamp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
