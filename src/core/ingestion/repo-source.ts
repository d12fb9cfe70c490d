// The port through which ingestion receives a repository's objects. It is declared here, beside
// the ingestion that consumes it, because what a fetch hands back (the pack's catalog) is an
// ingestion type; adapters in src/app implement it (docs/architecture.md, "Ports").
import type { FsLike } from '../ports.js';
import type { PackCatalog } from './pack-catalog.js';

/** What a repository source says about itself before anything is fetched. */
export interface RepoInfo {
  /** Identity used in storage keys. */
  owner: string;
  repo: string;
  /** The ref HEAD points at, when known (e.g. "refs/heads/main"). */
  defaultRef?: string;
  /** Size in KiB as the provider reports it, when it does. */
  sizeKb?: number;
  /** A human-readable description of where this came from, without credentials. */
  displayUrl: string;
}

export interface FetchRequest {
  /** Target file system that receives the objects (memfs in production). */
  fs: FsLike;
  gitdir: string;
  /** The ref that was resolved (e.g. "refs/heads/main"). */
  ref: string;
  /** The commit the ref resolved to before fetching; the fetch must yield exactly this commit. */
  commitSha: string;
  /** Byte cap for the transferred pack; exceeding it aborts with REPO_TOO_LARGE. */
  maxBytes?: number;
  /** Path limits for any tree the source walks itself (a local working copy's HEAD, say). */
  limits?: { maxFileCount: number; maxPathDepth: number };
  onProgress?: (event: { phase: string; loaded: number; total?: number }) => void;
  /** Commits of history to fetch, the base included (default 1). */
  depth?: number;
  /** Fetch every commit after this ISO time instead of a fixed depth (protocol v2 `deepen-since`). */
  deepenSince?: string;
  /** `blob:none`: commits and trees only; blobs come later through `fetchBlobs`. */
  filter?: 'blob:none';
}

/** What a fetch actually did when the source could not honour the whole request, and why. */
export interface FetchApplied {
  depth: number;
  deepenSince?: string;
  filter?: 'blob:none';
  /** Set when the source fell back (a capability the server lacks, say). */
  fallback?: string;
}

export interface BlobFetchRequest {
  fs: FsLike;
  gitdir: string;
  oids: string[];
  /** Byte cap for this transfer. */
  maxBytes: number;
  /** Largest inflated blob accepted. */
  maxObjectBytes: number;
}

export interface DeepenRequest {
  fs: FsLike;
  gitdir: string;
  ref: string;
  commitSha: string;
  /** Total commits wanted from the base commit, the base included. */
  depth: number;
  filter?: 'blob:none';
  maxBytes: number;
}

export interface FetchResult {
  /** The commit SHA the fetched ref pointed to. */
  fetchedSha: string;
  /** Bytes received (pack size), when known. */
  bytes?: number;
  warnings: { code: string; message: string; data?: Record<string, unknown> }[];
  /** History and filter as fetched; absent means depth 1, no filter, as asked. */
  applied?: FetchApplied;
  /** The fetched pack's objects, catalogued while it was indexed; absent: read from the store. */
  catalog?: PackCatalog;
}

/**
 * Where a repository's objects come from. Resolve first (ref -> SHA), then fetch exactly that
 * commit into an injected object store. Credentials are the adapter's business; they never
 * travel through core.
 */
export interface RepoSource {
  info(): Promise<RepoInfo>;
  /** Resolve a ref (branch, tag, full ref, or SHA) to a commit SHA; undefined if it does not exist. */
  resolveRef(ref: string | undefined): Promise<{ ref: string; sha: string } | undefined>;
  fetch(request: FetchRequest): Promise<FetchResult>;
  /** The ref's current head, for stale-base checks. */
  currentHead(ref: string): Promise<string | undefined>;
  /** Blobs missing from a `blob:none` fetch, by id, into the same object store. */
  fetchBlobs?(request: BlobFetchRequest): Promise<{ bytes: number; objects: number }>;
  /** More history for a commit already fetched; returns the depth now present. */
  deepen?(request: DeepenRequest): Promise<{ depth: number; bytes: number }>;
}
