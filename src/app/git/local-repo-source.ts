import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import git from 'isomorphic-git';
import { IngestionError } from '../../core/errors.js';
import type { DeepenRequest, FetchApplied, FetchRequest, FetchResult, RepoInfo, RepoSource } from '../../core/ingestion/repo-source.js';
import { DEFAULT_INGESTION_POLICY } from '../../core/ingestion/ingestion-policy.js';
import { identityFromLocalPath } from './repo-identity.js';
import { runGit } from './run-git.js';
import { checkTreeBounds } from './tree-bounds.js';

const SHA = /^[0-9a-f]{40}$/;

/** The git directory of a working copy or bare repository at `path`; REPOSITORY_NOT_FOUND when there is none. */
export async function locateGitDir(path: string): Promise<{ gitdir: string; bare: boolean }> {
  try {
    const out = (await runGit(['-C', path, 'rev-parse', '--absolute-git-dir', '--is-bare-repository'])).toString('utf8').trim().split('\n');
    return { gitdir: out[0], bare: out[1] === 'true' };
  } catch (error) {
    throw new IngestionError('REPOSITORY_NOT_FOUND', `not a git repository: ${path}`, { path }, { cause: error });
  }
}

/**
 * RepoSource for a local working copy or bare repository (the CLI). Objects are copied, so
 * every SHA is the source's own: native git packs exactly the base commit's objects (and the
 * history the plan asks for)
 * (`rev-list --objects --no-walk` -> `pack-objects --stdout` -> `index-pack` in a temp dir) and the pack
 * and its index are copied into the object store. Nothing is re-hashed in JavaScript, which is
 * what keeps 50k-file repositories fast. Uncommitted changes are ignored and reported; every
 * git command runs through `runGit`, so nothing the repository's own config names (fsmonitor,
 * hooks, filters) is executed.
 */
export class LocalRepoSource implements RepoSource {
  private readonly path: string;
  private gitdirCache?: Promise<{ gitdir: string; bare: boolean }>;

  constructor(path: string) {
    this.path = resolve(path);
  }

  private locate(): Promise<{ gitdir: string; bare: boolean }> {
    this.gitdirCache ??= locateGitDir(this.path);
    return this.gitdirCache;
  }

  async info(): Promise<RepoInfo> {
    const { gitdir } = await this.locate();
    const identity = identityFromLocalPath(this.path);
    const counts = (await runGit(['--git-dir', gitdir, 'count-objects', '-v'])).toString('utf8');
    const field = (name: string): number => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(counts)?.[1] ?? 0);
    let defaultRef: string | undefined;
    try {
      defaultRef = (await runGit(['--git-dir', gitdir, 'symbolic-ref', '-q', 'HEAD'])).toString('utf8').trim() || undefined;
    } catch {
      defaultRef = undefined;
    }
    return { ...identity, displayUrl: `file://${this.path}`, sizeKb: field('size') + field('size-pack'), ...(defaultRef ? { defaultRef } : {}) };
  }

  async resolveRef(ref: string | undefined): Promise<{ ref: string; sha: string } | undefined> {
    const { gitdir } = await this.locate();
    const wanted = ref ?? 'HEAD';
    if (wanted.startsWith('-') || /[\u0000-\u001f\u007f ~^:?*[\\]|\.\.|@\{/.test(wanted)) return undefined;
    const candidates =
      SHA.test(wanted) || wanted === 'HEAD' || wanted.startsWith('refs/') ? [wanted] : [`refs/heads/${wanted}`, `refs/tags/${wanted}`, `refs/${wanted}`];
    for (const candidate of candidates) {
      try {
        const sha = (await runGit(['--git-dir', gitdir, 'rev-parse', '--verify', '--quiet', `${candidate}^{commit}`])).toString('utf8').trim();
        if (!SHA.test(sha)) continue;
        let name = candidate;
        if (candidate === 'HEAD') {
          try {
            name = (await runGit(['--git-dir', gitdir, 'symbolic-ref', '-q', 'HEAD'])).toString('utf8').trim() || 'HEAD';
          } catch {
            name = 'HEAD';
          }
        }
        return { ref: name, sha };
      } catch {
        continue;
      }
    }
    return undefined;
  }

  async currentHead(ref: string): Promise<string | undefined> {
    return (await this.resolveRef(ref))?.sha;
  }

  /**
   * The commits to copy: the base alone, `depth` commits of its history, or every commit since
   * a time (the base at least). The local history is all there, so deepening costs only the copy.
   */
  private async commitsToCopy(
    gitdir: string,
    commitSha: string,
    depth: number,
    since: string | undefined,
  ): Promise<{ commits: string[]; shallow: string[]; applied: FetchApplied }> {
    const list = async (args: string[]) =>
      (await runGit(['--git-dir', gitdir, 'rev-list', '--parents', ...args, commitSha]))
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split(' '));
    let rows = since !== undefined ? await list([`--since=${since}`]) : await list([`--max-count=${Math.max(1, depth)}`]);
    let applied: FetchApplied = since !== undefined ? { depth, deepenSince: since } : { depth };
    if (rows.length === 0) {
      rows = await list([`--max-count=${Math.max(1, depth)}`]);
      applied = { depth, fallback: `no commit since ${since}: depth ${depth}` };
    }
    const commits = rows.map((r) => r[0]);
    const present = new Set(commits);
    const shallow = rows.filter((r) => r.slice(1).some((parent) => !present.has(parent))).map((r) => r[0]);
    return { commits, shallow, applied };
  }

  /** Copy objects (the listed commits with their trees, and blobs) into the object store as one pack. */
  private async copyObjects(
    gitdir: string,
    request: { fs: FetchRequest['fs']; gitdir: string; maxBytes?: number },
    commits: string[],
    shallow: string[],
  ): Promise<number> {
    const objects = await runGit(['--git-dir', gitdir, 'rev-list', '--objects', '--no-walk', ...commits]);
    const list = Buffer.from(
      objects
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.slice(0, 40))
        .join('\n') + '\n',
    );
    const temp = await mkdtemp(join(tmpdir(), 'draftsman-pack-'));
    try {
      // --stdout, then index-pack outside the source: pack-objects writing files would create
      // temporaries in the source's own objects/pack, and the source must stay untouched.
      const pack = await runGit(['--git-dir', gitdir, 'pack-objects', '-q', '--stdout', '--delta-base-offset'], { input: list });
      if (request.maxBytes !== undefined && pack.byteLength > request.maxBytes) {
        throw new IngestionError('REPO_TOO_LARGE', `the base commit packs to ${pack.byteLength} bytes, over the ${request.maxBytes} byte cap`, {
          bytes: pack.byteLength,
          maxBytes: request.maxBytes,
        });
      }
      const name = pack.subarray(pack.byteLength - 20).toString('hex');
      await writeFile(join(temp, `pack-${name}.pack`), pack);
      await runGit(['index-pack', join(temp, `pack-${name}.pack`)], { cwd: temp });
      const idx = await readFile(join(temp, `pack-${name}.idx`));
      const { fs, gitdir: target } = request;
      await git.init({ fs, gitdir: target, bare: true, defaultBranch: 'main' });
      await fs.promises.mkdir(`${target}/objects/pack`, { recursive: true });
      await fs.promises.writeFile(`${target}/objects/pack/pack-${name}.pack`, pack);
      await fs.promises.writeFile(`${target}/objects/pack/pack-${name}.idx`, idx);
      if (shallow.length > 0) await fs.promises.writeFile(`${target}/shallow`, `${[...shallow].sort().join('\n')}\n`);
      else await fs.promises.unlink(`${target}/shallow`).catch(() => undefined);
      return pack.byteLength;
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  }

  /** More history: the commits down to `depth`, copied again (a local copy is cheap). */
  async deepen(request: DeepenRequest): Promise<{ depth: number; bytes: number }> {
    const { gitdir } = await this.locate();
    const { commits, shallow } = await this.commitsToCopy(gitdir, request.commitSha, request.depth, undefined);
    const bytes = await this.copyObjects(gitdir, request, commits, shallow);
    return { depth: request.depth, bytes };
  }

  async fetch(request: FetchRequest): Promise<FetchResult> {
    const { fs, gitdir: target, commitSha } = request;
    if (!SHA.test(commitSha)) throw new IngestionError('BASE_REF_NOT_FOUND', `not a commit SHA: ${commitSha}`, { commitSha });
    const { gitdir, bare } = await this.locate();
    const { commits, shallow, applied } = await this.commitsToCopy(gitdir, commitSha, request.depth ?? 1, request.deepenSince);
    // Blobs are local: a filter would save nothing, so every blob of the copied commits is copied.
    if (request.filter) applied.fallback = [applied.fallback, 'a local source copies blobs with their commits (no filter)'].filter(Boolean).join('; ');
    const packBytes = await this.copyObjects(gitdir, request, commits, shallow);
    if (request.ref.startsWith('refs/heads/'))
      await git.writeRef({ fs, gitdir: target, ref: `refs/remotes/origin/${request.ref.slice('refs/heads/'.length)}`, value: commitSha, force: true });
    const warnings: FetchResult['warnings'] = [];
    if (!bare) {
      // `status` expands the whole HEAD tree against the index: a tree bomb at HEAD would
      // list billions of paths, so HEAD is measured first, within the policy's limits.
      if (await hasHead(gitdir)) await checkTreeBounds(gitdir, 'HEAD', request.limits ?? DEFAULT_INGESTION_POLICY);
      const status = (
        await runGit(['-C', this.path, 'status', '--porcelain=v1', '-z', '--untracked-files=normal', '--no-renames', '--ignore-submodules=all'], {
          filtersOf: ['-C', this.path],
        })
      ).toString('utf8');
      const paths = status
        .split('\u0000')
        .filter((e) => e.length > 3)
        .map((e) => e.slice(3));
      if (paths.length > 0) {
        warnings.push({
          code: 'LOCAL_CHANGES_IGNORED',
          message: `${paths.length} uncommitted change(s) in the working copy are ignored; only the commit is used`,
          data: { count: paths.length, paths: paths.slice(0, 20) },
        });
      }
    }
    request.onProgress?.({ phase: 'copied objects', loaded: packBytes, total: packBytes });
    return { fetchedSha: commitSha, bytes: packBytes, warnings, applied };
  }
}

async function hasHead(gitdir: string): Promise<boolean> {
  try {
    await runGit(['--git-dir', gitdir, 'rev-parse', '--verify', '--quiet', 'HEAD^{tree}']);
    return true;
  } catch {
    return false;
  }
}
