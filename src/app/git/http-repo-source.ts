import git, { type GitAuth, type HttpClient, type ServerRef } from 'isomorphic-git';
import nodeHttp from 'isomorphic-git/http/node';
import { IngestionError, type IngestionReason } from '../../core/errors.js';
import type { PackCatalog } from '../../core/ingestion/pack-catalog.js';
import type { BlobFetchRequest, DeepenRequest, FetchApplied, FetchRequest, FetchResult, RepoInfo, RepoSource } from '../../core/ingestion/repo-source.js';
import { FetchPackError, fetchFeaturesV2, fetchPackV2, type FetchPackV2Options } from './fetch-pack-v2.js';
import { borrowingHttp } from './borrowing-http.js';
import { guardHttp, type TransferGuard } from './guarded-http.js';
import { displayUrl, identityFromUrl, type RepoIdentity } from './repo-identity.js';
import { isInsecureForCredentials, scopeCredentials } from './scoped-credentials.js';

export interface HttpRepoSourceOptions {
  /** Smart-HTTP URL of the repository, without credentials. */
  url: string;
  /** Asked only when the server answers 401; undefined means "no credentials". */
  token?: () => Promise<string | undefined>;
  /** Storage identity; default: from the URL path (`host/o/r(.git)` -> o/r). */
  identity?: RepoIdentity;
  /** Size as the provider reports it (e.g. the GitHub API's `size`), when known. */
  sizeKb?: () => Promise<number | undefined>;
  /** Deadline for one whole fetch (all requests). Default 120 s. */
  timeoutMs?: number;
  /** Deadline for resolving refs. Default 30 s. */
  resolveTimeoutMs?: number;
  /**
   * The HTTP client for every request; default isomorphic-git's Node client, and for the
   * protocol v2 fetch (whose body chunks are copied as they come) `borrowingHttp`, which reads
   * the socket into one reused buffer.
   */
  http?: HttpClient;
  /** Try protocol v2 with native pack indexing first (default true); false uses isomorphic-git only. */
  protocolV2?: boolean;
}

/**
 * RepoSource for any smart-HTTP remote (GitHub in production, `git http-backend` in tests),
 * through isomorphic-git. Credentials only ever travel through `onAuth` as basic auth
 * (`x-access-token:<token>`): never in a URL, the object store's config, a log line or an
 * error; only after the server asked (401), only to the URL's own origin, and never over plain
 * http except to loopback. A rejected token cancels instead of retrying.
 */
export class HttpRepoSource implements RepoSource {
  private readonly url: string;
  private readonly display: string;
  private readonly http: HttpClient;
  /** For `fetchPackV2` and `fetchFeaturesV2`, which never keep a body chunk past the next. */
  private readonly packHttp: HttpClient;
  /** Basic credentials once a server challenge was answered; reused by later on-demand fetches. */
  private authorization?: string;

  constructor(private readonly options: HttpRepoSourceOptions) {
    const parsed = new URL(options.url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`not an http(s) URL: ${displayUrl(options.url)}`);
    if (parsed.username || parsed.password) throw new Error('repository URL must not carry credentials; pass a token provider');
    this.url = options.url;
    this.display = displayUrl(options.url);
    this.http = scopeCredentials(options.http ?? nodeHttp, options.url);
    this.packHttp = scopeCredentials(options.http ?? borrowingHttp, options.url);
  }

  /** The token, refused (before any request is made) when it would travel over plain http. */
  private async credential(): Promise<string | undefined> {
    const token = await this.options.token?.();
    if (token && isInsecureForCredentials(this.url)) {
      throw new IngestionError(
        'CLONE_AUTH_FAILED',
        `refusing to send a token over plain http to ${this.display}; use https (plain http is allowed for loopback only)`,
        { url: this.display, insecureTransport: true },
      );
    }
    return token;
  }

  async info(): Promise<RepoInfo> {
    const identity = this.options.identity ?? identityFromUrl(this.url);
    const sizeKb = await this.options.sizeKb?.();
    return { ...identity, displayUrl: this.display, ...(sizeKb !== undefined ? { sizeKb } : {}) };
  }

  async resolveRef(ref: string | undefined): Promise<{ ref: string; sha: string } | undefined> {
    if (ref !== undefined && /^[0-9a-f]{40}$/.test(ref)) return { ref, sha: ref };
    const refs = await this.listRefs();
    return pickRef(refs, ref);
  }

  async currentHead(ref: string): Promise<string | undefined> {
    return (await this.resolveRef(ref))?.sha;
  }

  /**
   * Fetch exactly `commitSha` with the requested history (depth, or `deepen-since`) and filter:
   * first by SHA (servers allow a reachable SHA in a
   * stateless `want`), then, if the server refuses, by branch, checking the tip equals the
   * resolved SHA, retried once; a tip that still differs is BASE_MOVED_DURING_FETCH. History
   * and `blob:none` need the server to advertise `shallow` and `filter` in its v2 `fetch`
   * capabilities; without them the fetch falls back (depth 1, whole commit) and `applied`
   * says why. isomorphic-git, the last resort, honours depth and since but has no filter.
   */
  async fetch(request: FetchRequest): Promise<FetchResult> {
    const { fs, gitdir, commitSha } = request;
    await this.credential();
    await git.init({ fs, gitdir, bare: true, defaultBranch: 'main' });
    // A refspec is needed by isomorphic-git's fetch; the URL itself is never written to config.
    await git.setConfig({ fs, gitdir, path: 'remote.origin.fetch', value: '+refs/heads/*:refs/remotes/origin/*' });
    const { http, guard, also } = guardHttp(this.http, { maxBytes: request.maxBytes, timeoutMs: this.options.timeoutMs ?? 120_000 });
    const plan: FetchPlan = { depth: request.depth ?? 1, since: request.deepenSince, filter: request.filter, fallbacks: [] };
    const attempt = async (ref: string): Promise<string | undefined> => {
      try {
        const result = await git.fetch({
          fs,
          http,
          gitdir,
          url: this.url,
          ref,
          singleBranch: true,
          depth: plan.since ? undefined : plan.depth,
          ...(plan.since ? { since: new Date(plan.since) } : {}),
          tags: false,
          ...this.auth(),
          onProgress: request.onProgress ? (p) => request.onProgress?.({ phase: p.phase, loaded: p.loaded, total: p.total }) : undefined,
        });
        return result.fetchHead ?? undefined;
      } catch (error) {
        throw this.trippedError(guard, request.maxBytes) ?? this.translate(error, 'fetch');
      }
    };

    // Fast path: protocol v2 `want <sha>` with the pack indexed natively; any answer it does not
    // understand falls back to isomorphic-git's fetch, which also maps errors to reason codes. A
    // v2 server that refused the SHA is not asked for it again: the branch path follows directly.
    let refusedWant = false;
    if (this.options.protocolV2 !== false)
      try {
        const catalog = await this.fetchV2(request, also(this.packHttp), guard, plan);
        if (catalog.get(commitSha)?.type === 'commit') return { fetchedSha: commitSha, bytes: guard.bytes, warnings: [], applied: appliedOf(plan), catalog };
      } catch (error) {
        const tripped = this.trippedError(guard, request.maxBytes);
        if (tripped) throw tripped;
        // A size refusal is final: the fallback would inflate the same objects without a cap.
        if (error instanceof IngestionError) throw error;
        refusedWant = error instanceof FetchPackError && error.refusedWant;
      }
    if (plan.filter !== undefined) {
      plan.fallbacks.push('protocol v2 fetch failed: isomorphic-git has no partial clone, blobs fetched with the commit');
      plan.filter = undefined;
    }
    await this.pinByFetch(request, attempt, refusedWant);
    return { fetchedSha: commitSha, bytes: guard.bytes, warnings: [], applied: appliedOf(plan) };
  }

  /** The error a tripped transfer guard means (byte cap, deadline); undefined when it did not trip. */
  private trippedError(guard: TransferGuard, maxBytes: number | undefined): IngestionError | undefined {
    if (guard.tripped === 'BYTE_CAP')
      return new IngestionError('REPO_TOO_LARGE', `transfer exceeded the ${maxBytes} byte cap`, { maxBytes, url: this.display });
    if (guard.tripped === 'TIMEOUT')
      return new IngestionError('CLONE_TIMEOUT', 'fetch timed out', { url: this.display, timeoutMs: this.options.timeoutMs ?? 120_000 });
    return undefined;
  }

  /**
   * The protocol v2 fetch of the commit: history and filter as the server's capabilities allow
   * (what it cannot do is dropped and noted in `plan`); a refused `deepen-since` falls back to depth.
   */
  private async fetchV2(request: FetchRequest, packHttp: HttpClient, guard: TransferGuard, plan: FetchPlan): Promise<PackCatalog> {
    if (plan.depth > 1 || plan.since !== undefined || plan.filter !== undefined) {
      const features = await this.withAuth((authorization) => fetchFeaturesV2({ http: packHttp, url: this.url, authorization }));
      dropUnsupported(plan, features);
    }
    const { fs, gitdir, commitSha } = request;
    const base: FetchPackV2Options = {
      http: packHttp,
      url: this.url,
      fs,
      gitdir,
      wants: [commitSha],
      filter: plan.filter,
      limits: { maxTotalBytes: request.maxBytes },
    };
    const v2 = async (extra: Partial<FetchPackV2Options>) =>
      (await this.withAuth((authorization) => fetchPackV2({ ...base, ...extra, authorization }))).catalog;
    const since = plan.since;
    if (since === undefined) return v2({ depth: plan.depth });
    try {
      return await v2({ deepenSince: Math.floor(Date.parse(since) / 1000) });
    } catch (error) {
      // No commit after the date (the base itself is older): fall back to the plan's depth.
      if (guard.tripped || !(error instanceof FetchPackError)) throw error;
      plan.fallbacks.push(`deepen-since ${since} refused (${error.message}): depth ${plan.depth}`);
      plan.since = undefined;
      return v2({ depth: plan.depth });
    }
  }

  /**
   * isomorphic-git's fetch of the commit by SHA (unless the server refused that want), else of
   * the branch, whose tip must be the commit (retried once): BASE_MOVED_DURING_FETCH otherwise.
   */
  private async pinByFetch(request: FetchRequest, attempt: (ref: string) => Promise<string | undefined>, refusedWant: boolean): Promise<void> {
    const { fs, gitdir, commitSha } = request;
    let pinned = false;
    try {
      if (!refusedWant) pinned = (await attempt(commitSha)) === commitSha && (await hasCommit(fs, gitdir, commitSha));
    } catch (error) {
      if (!(error instanceof IngestionError) || !isRefusedWant(error)) throw error;
    }
    if (pinned) return;
    const branch = request.ref;
    if (/^[0-9a-f]{40}$/.test(branch))
      throw new IngestionError('BASE_MOVED_DURING_FETCH', 'the server refused the base commit', { expected: commitSha, url: this.display });
    let tip: string | undefined;
    for (let tries = 0; tries < 2 && !pinned; tries++) {
      tip = await attempt(branch);
      pinned = tip === commitSha && (await hasCommit(fs, gitdir, commitSha));
    }
    if (!pinned)
      throw new IngestionError('BASE_MOVED_DURING_FETCH', `${branch} moved while fetching`, {
        expected: commitSha,
        fetched: tip,
        ref: branch,
        url: this.display,
      });
  }

  /**
   * Blobs a `blob:none` fetch left out, by id (protocol v2 `want <blob>`, no filter), within the
   * caller's byte cap and per-object inflate limit.
   */
  async fetchBlobs(request: BlobFetchRequest): Promise<{ bytes: number; objects: number }> {
    const { fs, gitdir, oids, maxBytes, maxObjectBytes } = request;
    const result = await this.guarded(maxBytes, (http) =>
      this.withAuth((authorization) =>
        fetchPackV2({ http, url: this.url, fs, gitdir, wants: oids, authorization, limits: { maxTotalBytes: maxBytes, maxObjectBytes } }),
      ),
    );
    return { bytes: result.bytes, objects: result.value.objects };
  }

  /** More history for a commit already present: a new fetch at the larger depth (no haves, so bounded by the cap). */
  async deepen(request: DeepenRequest): Promise<{ depth: number; bytes: number }> {
    const { fs, gitdir, commitSha, depth, filter, maxBytes } = request;
    const result = await this.guarded(maxBytes, async (http) => {
      const features = await this.withAuth((authorization) => fetchFeaturesV2({ http, url: this.url, authorization }));
      if (!features.has('shallow'))
        throw new IngestionError('REPOSITORY_NOT_FOUND', 'the server does not advertise shallow in its v2 fetch capabilities; history cannot be deepened', {
          url: this.display,
          stage: 'deepen',
        });
      const usable = filter !== undefined && features.has('filter') ? filter : undefined;
      return this.withAuth((authorization) =>
        fetchPackV2({ http, url: this.url, fs, gitdir, wants: [commitSha], depth, filter: usable, authorization, limits: { maxTotalBytes: maxBytes } }),
      );
    });
    return { depth, bytes: result.bytes };
  }

  /** One on-demand transfer under a byte cap and the fetch deadline, errors mapped to reason codes. */
  private async guarded<T>(maxBytes: number, run: (http: HttpClient) => Promise<T>): Promise<{ value: T; bytes: number }> {
    await this.credential();
    const timeoutMs = this.options.timeoutMs ?? 120_000;
    const { guard, also } = guardHttp(this.http, { maxBytes, timeoutMs });
    try {
      const value = await run(also(this.packHttp));
      return { value, bytes: guard.bytes };
    } catch (error) {
      if (guard.tripped === 'BYTE_CAP')
        throw new IngestionError('REPO_TOO_LARGE', `transfer exceeded the ${maxBytes} byte cap`, { maxBytes, url: this.display });
      if (guard.tripped === 'TIMEOUT') throw new IngestionError('CLONE_TIMEOUT', 'fetch timed out', { url: this.display, timeoutMs });
      if (error instanceof IngestionError) throw error;
      if (error instanceof FetchPackError && error.statusCode === 401)
        throw new IngestionError('CLONE_AUTH_FAILED', `authentication failed for ${this.display}`, { url: this.display });
      throw new IngestionError('REPOSITORY_NOT_FOUND', `on-demand fetch failed for ${this.display}`, { url: this.display, stage: 'on-demand' });
    }
  }

  /**
   * A v2 request, first without credentials (or with the last ones); on a challenge (401) the
   * token is asked again, once: installation tokens are short-lived and a run outlives one.
   */
  private async withAuth<T>(call: (authorization?: string) => Promise<T>): Promise<T> {
    try {
      return await call(this.authorization);
    } catch (error) {
      if (!(error instanceof FetchPackError) || error.statusCode !== 401) throw error;
      const token = await this.credential();
      if (!token) throw error;
      this.authorization = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
      return call(this.authorization);
    }
  }

  private auth(): { onAuth: () => Promise<GitAuth>; onAuthFailure: () => GitAuth } {
    return {
      onAuth: async () => {
        const token = await this.credential();
        return token ? { username: 'x-access-token', password: token } : { cancel: true };
      },
      onAuthFailure: () => ({ cancel: true }),
    };
  }

  private async listRefs(): Promise<ServerRef[]> {
    await this.credential();
    const { http, guard } = guardHttp(this.http, { timeoutMs: this.options.resolveTimeoutMs ?? 30_000 });
    try {
      return await git.listServerRefs({ http, url: this.url, protocolVersion: 1, symrefs: true, peelTags: true, ...this.auth() });
    } catch (error) {
      if (guard.tripped === 'TIMEOUT') throw new IngestionError('CLONE_TIMEOUT', 'resolving refs timed out', { url: this.display });
      throw this.translate(error, 'resolve');
    }
  }

  /** isomorphic-git error -> our reason code; the message names the URL without credentials. */
  private translate(error: unknown, stage: 'resolve' | 'fetch'): IngestionError {
    const code = (error as { code?: string } | undefined)?.code;
    const status = (error as { data?: { statusCode?: number } } | undefined)?.data?.statusCode;
    let reason: IngestionReason = 'REPOSITORY_NOT_FOUND';
    let message = `${stage} failed for ${this.display}`;
    if (code === 'UserCanceledError' || status === 401) {
      reason = 'CLONE_AUTH_FAILED';
      message = `authentication failed for ${this.display}`;
    } else if (status === 403) {
      reason = 'REPOSITORY_ACCESS_DENIED';
      message = `access denied to ${this.display}`;
    } else if (status === 404) {
      message = `repository not found: ${this.display}`;
    } else if (code === 'NotFoundError') {
      reason = 'BASE_REF_NOT_FOUND';
      message = `ref not found on ${this.display}`;
    } else if (code === 'ETIMEDOUT' || code === 'ECONNRESET' || code === 'ECONNREFUSED') {
      reason = code === 'ETIMEDOUT' ? 'CLONE_TIMEOUT' : 'REPOSITORY_NOT_FOUND';
      message = `cannot reach ${this.display} (${code})`;
    }
    // Only the code and status survive: isomorphic-git messages may quote server responses.
    return new IngestionError(reason, message, { url: this.display, stage, ...(code ? { code } : {}), ...(status ? { statusCode: status } : {}) });
  }
}

/** A refused `want <sha>` shows up as a generic failure of the upload-pack POST. */
function isRefusedWant(error: IngestionError): boolean {
  return error.reason === 'REPOSITORY_NOT_FOUND' || error.reason === 'BASE_REF_NOT_FOUND';
}

async function hasCommit(fs: FetchRequest['fs'], gitdir: string, oid: string): Promise<boolean> {
  try {
    await git.readCommit({ fs, gitdir, oid });
    return true;
  } catch {
    return false;
  }
}

/** Resolve like git does: HEAD's target, an exact full ref, then refs/heads/x, refs/tags/x. */
export function pickRef(refs: ServerRef[], ref: string | undefined): { ref: string; sha: string } | undefined {
  const byName = new Map(refs.map((r) => [r.ref, r]));
  const peeled = (r: ServerRef): string => r.peeled ?? r.oid;
  if (ref === undefined || ref === 'HEAD') {
    const head = byName.get('HEAD');
    if (!head) return undefined;
    return { ref: head.target ?? 'HEAD', sha: peeled(head) };
  }
  for (const candidate of ref.startsWith('refs/') ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`, `refs/${ref}`]) {
    const found = byName.get(candidate);
    if (found) return { ref: candidate, sha: peeled(found) };
  }
  return undefined;
}

/** The history and filter a fetch asks for, lowered as the server's capabilities demand, with why. */
interface FetchPlan {
  depth: number;
  since?: string;
  filter?: FetchRequest['filter'];
  fallbacks: string[];
}

/** History needs `shallow` and a filter `filter` among the server's v2 fetch capabilities; without them they are dropped. */
function dropUnsupported(plan: FetchPlan, features: Set<string>): void {
  if ((plan.depth > 1 || plan.since !== undefined) && !features.has('shallow')) {
    plan.fallbacks.push('the server does not advertise shallow in its v2 fetch capabilities: depth 1');
    plan.depth = 1;
    plan.since = undefined;
  }
  if (plan.filter !== undefined && !features.has('filter')) {
    plan.fallbacks.push('the server does not advertise filter in its v2 fetch capabilities: blobs fetched with the commit');
    plan.filter = undefined;
  }
}

function appliedOf(plan: FetchPlan): FetchApplied {
  const { depth, since, filter, fallbacks } = plan;
  return {
    depth,
    ...(since ? { deepenSince: since } : {}),
    ...(filter ? { filter } : {}),
    ...(fallbacks.length > 0 ? { fallback: fallbacks.join('; ') } : {}),
  };
}
