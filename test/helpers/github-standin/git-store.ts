import { spawn } from 'node:child_process';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { decodeCommit, decodeTree, encodeCommit, encodeTree, frameObject, objectSha, type CommitFields, type TreeEntry } from './git-objects.js';

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Runs native git against a bare repository; never throws on a non-zero exit. */
export function runGit(gitdir: string, args: string[], input?: Uint8Array, env: Record<string, string> = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      env: { ...process.env, GIT_DIR: gitdir, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ? Buffer.from(input) : undefined);
  });
}

/** Bodies larger than this are read from git each time rather than kept in memory. */
const MAX_KEPT_BODY = 1 << 20;

async function gitOk(gitdir: string, args: string[], input?: Uint8Array): Promise<Buffer> {
  const r = await runGit(gitdir, args, input);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr.trim()}`);
  return r.stdout;
}

/**
 * The object database and refs of one bare repository, read and written with native git, so
 * the Git Data API and a `git http-backend` serving the same directory see the same objects.
 * SHAs are computed in JavaScript first and checked against what git stores.
 */
export class GitStore {
  constructor(readonly gitdir: string) {}

  /**
   * What git answered for an object, by SHA (`typeOf`) and by `<type> <sha>` (`readRaw`, which
   * git may answer by peeling, a commit read as a tree). An object never changes once stored, so
   * a hit is what git would answer again; only answers for existing objects are kept (a miss asks
   * git again). Each git call is a process, and a run reads the same trees and commits many times.
   */
  private readonly types = new Map<string, string>();
  private readonly bodies = new Map<string, Buffer>();

  static async init(gitdir: string, defaultBranch: string): Promise<GitStore> {
    const r = await runGit(gitdir, ['init', '--bare', '--quiet', `--initial-branch=${defaultBranch}`, gitdir]);
    if (r.code !== 0) throw new Error(`git init failed: ${r.stderr}`);
    return new GitStore(gitdir);
  }

  /**
   * While true, objects are written as loose objects directly (zlib of the framed object, the
   * format git reads), which makes seeding large repositories fast; API writes go through git.
   */
  direct = false;

  private async writeLoose(sha: string, type: 'blob' | 'tree' | 'commit', body: Uint8Array): Promise<void> {
    const dir = join(this.gitdir, 'objects', sha.slice(0, 2));
    const file = join(dir, sha.slice(2));
    if (
      await stat(file).then(
        () => true,
        () => false,
      )
    )
      return;
    await mkdir(dir, { recursive: true });
    const temp = `${file}.tmp-${process.pid}`;
    await writeFile(temp, deflateSync(frameObject(type, body)));
    await rename(temp, file);
  }

  private async write(type: 'blob' | 'tree' | 'commit', body: Uint8Array): Promise<string> {
    const expected = objectSha(type, body);
    if (this.types.has(expected)) return expected;
    if (this.direct) {
      await this.writeLoose(expected, type, body);
    } else {
      const stored = (await gitOk(this.gitdir, ['hash-object', '-w', '-t', type, '--stdin'], body)).toString().trim();
      if (stored !== expected) throw new Error(`git stored ${type} ${stored}, expected ${expected}`);
    }
    this.types.set(expected, type);
    if (body.length <= MAX_KEPT_BODY) this.bodies.set(`${type} ${expected}`, Buffer.from(body));
    return expected;
  }

  writeBlob(bytes: Uint8Array): Promise<string> {
    return this.write('blob', bytes);
  }

  writeTree(entries: TreeEntry[]): Promise<string> {
    return this.write('tree', encodeTree(entries));
  }

  writeCommit(fields: CommitFields): Promise<string> {
    return this.write('commit', encodeCommit(fields));
  }

  /** The object's type, or undefined when it does not exist. */
  async typeOf(sha: string): Promise<string | undefined> {
    if (!/^[0-9a-f]{40}$/.test(sha)) return undefined;
    const known = this.types.get(sha);
    if (known) return known;
    const r = await runGit(this.gitdir, ['cat-file', '-t', sha]);
    if (r.code !== 0) return undefined;
    const type = r.stdout.toString().trim();
    this.types.set(sha, type);
    return type;
  }

  async readRaw(type: 'blob' | 'tree' | 'commit', sha: string): Promise<Buffer | undefined> {
    if (!/^[0-9a-f]{40}$/.test(sha)) return undefined;
    const known = this.bodies.get(`${type} ${sha}`);
    if (known) return Buffer.from(known);
    const r = await runGit(this.gitdir, ['cat-file', type, sha]);
    if (r.code !== 0) return undefined;
    if (r.stdout.length <= MAX_KEPT_BODY) this.bodies.set(`${type} ${sha}`, r.stdout);
    return Buffer.from(r.stdout);
  }

  async readTree(sha: string): Promise<TreeEntry[] | undefined> {
    const raw = await this.readRaw('tree', sha);
    return raw ? decodeTree(raw) : undefined;
  }

  async readCommit(sha: string): Promise<CommitFields | undefined> {
    const raw = await this.readRaw('commit', sha);
    return raw ? decodeCommit(raw) : undefined;
  }

  /** Full ref name -> SHA. */
  async readRef(ref: string): Promise<string | undefined> {
    const r = await runGit(this.gitdir, ['rev-parse', '--verify', '--quiet', `${ref}^{}`]);
    const sha = r.stdout.toString().trim();
    return r.code === 0 && sha ? sha : undefined;
  }

  /** Refs under a prefix (e.g. `refs/heads/`), sorted. */
  async listRefs(prefix: string): Promise<{ ref: string; sha: string }[]> {
    const out = await gitOk(this.gitdir, ['for-each-ref', '--format=%(refname) %(objectname)', prefix.replace(/\/$/, '')]);
    return out
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [ref, sha] = line.split(' ');
        return { ref, sha };
      })
      .filter((r) => r.ref.startsWith(prefix));
  }

  /** Sets a ref, optionally only if it currently has `expectedOld` (all zeros: must not exist). */
  async updateRef(ref: string, sha: string, expectedOld?: string): Promise<boolean> {
    const args = ['update-ref', ref, sha];
    if (expectedOld !== undefined) args.push(expectedOld);
    return (await runGit(this.gitdir, args)).code === 0;
  }

  async deleteRef(ref: string): Promise<boolean> {
    return (await runGit(this.gitdir, ['update-ref', '-d', ref])).code === 0;
  }

  /** Commits reachable from `to` and not from `from` (`git rev-list --count from..to`). */
  async countCommits(from: string, to: string): Promise<number> {
    return Number((await gitOk(this.gitdir, ['rev-list', '--count', `${from}..${to}`])).toString().trim());
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    return (await runGit(this.gitdir, ['merge-base', '--is-ancestor', ancestor, descendant])).code === 0;
  }

  /** Resolves a branch, tag, full ref or SHA to a commit SHA. */
  async resolveCommitish(ref: string): Promise<string | undefined> {
    if (ref.startsWith('-')) return undefined;
    const candidates = /^[0-9a-f]{40}$/.test(ref) ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`, ref];
    for (const c of candidates) {
      const r = await runGit(this.gitdir, ['rev-parse', '--verify', '--quiet', `${c}^{commit}`]);
      if (r.code === 0) return r.stdout.toString().trim();
    }
    return undefined;
  }

  /** The entry at `path` inside a commit's tree. */
  async entryAt(commitSha: string, path: string): Promise<TreeEntry | undefined> {
    const commit = await this.readCommit(commitSha);
    if (!commit) return undefined;
    if (path === '') return { name: '', mode: '40000', sha: commit.tree };
    let tree = commit.tree;
    const parts = path.split('/');
    for (let i = 0; i < parts.length; i++) {
      const entries = await this.readTree(tree);
      const e = entries?.find((x) => x.name === parts[i]);
      if (!e) return undefined;
      if (i === parts.length - 1) return e;
      if (e.mode !== '40000') return undefined;
      tree = e.sha;
    }
    return undefined;
  }

  /** Approximate repository size in KiB, as GitHub reports `size`. */
  async sizeKb(): Promise<number> {
    const out = (await gitOk(this.gitdir, ['count-objects', '-v'])).toString();
    const get = (k: string) => Number(new RegExp(`^${k}: (\\d+)$`, 'm').exec(out)?.[1] ?? 0);
    return get('size') + get('size-pack');
  }
}
