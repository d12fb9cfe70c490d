import git from 'isomorphic-git';
import { IngestionError, type IngestionReason } from '../errors.js';
import type { Clock, FsLike, Logger } from '../ports.js';
import type { RepoInfo, RepoSource } from './repo-source.js';
import { openWorkspace, type ObjectWorkspace } from '../workspace/workspace.js';
import {
  BaseRefArtifact,
  IngestionArtifact,
  PolicyScanArtifact,
  type ClonePlan,
  type IngestionStatus,
  type IngestionWarning,
} from './artifacts.js';
import { planClone } from './clone-plan.js';
import { onDemandObjects } from './on-demand.js';
import type { IngestionPolicy } from './ingestion-policy.js';
import { blobFacts, type CatalogEntry, type PackCatalog } from './pack-catalog.js';
import { readPackCatalog } from './read-pack-catalog.js';
import { type ObjectType } from './pack-format.js';
import { scanTree, type Finding, type ObjectReader, type PolicyScanResult } from './policy-scan.js';
import { resolveScope, submodulesInScope, type ScopeResult } from './scope.js';
import { parseTreeEntries } from './tree-entries.js';

export interface IngestRequest {
  source: RepoSource;
  /** An empty file system (memfs) that receives the object store; nothing is checked out. */
  fs: FsLike;
  gitdir: string;
  /** Branch, tag, full ref or SHA; default: the repository's HEAD. */
  ref?: string;
  /** Scope globs relative to the repository root; a plain directory means dir/**. */
  paths?: string[];
  /** The task's text (title and body): the clone plan deepens history when it asks for it. */
  taskText?: string;
  /** The task's step scopes: checked against submodules only (a step may not reach into one). */
  stepPaths?: string[];
  policy: IngestionPolicy;
  /**
   * The limits to scan with, decided once the base commit's objects are present (the CLI reads
   * `.agent-policy.yaml` from the base commit itself). `policy` still bounds the fetch.
   */
  resolvePolicy?: (readFile: (path: string) => Promise<Uint8Array | undefined>) => Promise<IngestionPolicy>;
  clock: Clock;
  logger: Logger;
}

export interface IngestResult {
  status: 'READY' | 'READY_WITH_WARNINGS';
  workspace: ObjectWorkspace;
  baseRef: BaseRefArtifact;
  report: IngestionArtifact;
  policyScan: PolicyScanArtifact;
  warnings: IngestionWarning[];
  /** Files inside the read scope (every file when there is no scope). */
  scopedPaths: string[];
}

/** Reasons that are a policy decision (BLOCKED) rather than a failure to ingest (FAILED). */
const BLOCKING: ReadonlySet<IngestionReason> = new Set([
  'REPO_TOO_LARGE',
  'FILE_TOO_LARGE',
  'SUBMODULE_BLOCKED',
  'SUBMODULE_IN_SCOPE',
  'LFS_BLOCKED',
  'FORBIDDEN_SYMLINK',
  'HOSTILE_TREE_ENTRY',
  'FILE_COUNT_EXCEEDED',
  'FORBIDDEN_PATH_IN_SCOPE',
]);

/** When a tree is blocked for several reasons, the most dangerous one names the failure. */
const BLOCK_ORDER: IngestionReason[] = ['HOSTILE_TREE_ENTRY', 'FORBIDDEN_SYMLINK', 'SUBMODULE_BLOCKED', 'LFS_BLOCKED', 'FILE_COUNT_EXCEEDED'];

/**
 * Repository ingestion: resolve the base ref to a SHA first, fetch
 * exactly that commit (depth 1) into the injected object store, scan the trees against the
 * policy before anything is materialised, apply the scope, and open the object-backed
 * workspace. Returns the three artifacts; throws `IngestionError` (with `data.report`, and
 * `data.policyScan` once the scan ran) when ingestion fails or is blocked. One structured
 * log line per ingestion either way.
 */
export async function ingestRepository(request: IngestRequest): Promise<IngestResult> {
  const { source, fs, gitdir, policy, clock, logger } = request;
  const startedMs = clock.now();
  const iso = (ms: number): string => new Date(ms).toISOString();
  const history: { status: IngestionStatus; at: string }[] = [];
  const enter = (status: IngestionStatus): void => {
    history.push({ status, at: iso(clock.now()) });
  };
  let info: RepoInfo | undefined;
  let resolved: { ref: string; sha: string } | undefined;
  let treeSha: string | null = null;
  let plan: ClonePlan | null = null;
  let fetchStats: { bytes: number | null; durationMs: number } | null = null;
  let scanStats: { fileCount: number; totalBytes: number; durationMs: number } | null = null;
  let scope: ScopeResult | undefined;
  let policyScan: PolicyScanArtifact | undefined;
  const warnings: IngestionWarning[] = [];

  const buildReport = (status: IngestionStatus, error?: { reason: string; message: string }): IngestionArtifact => {
    const completedMs = clock.now();
    return IngestionArtifact.parse({
      schemaVersion: 1,
      status,
      statusHistory: history,
      repository: { owner: info?.owner ?? 'unknown', repo: info?.repo ?? 'unknown', displayUrl: info?.displayUrl ?? 'unknown', ...(info?.sizeKb !== undefined ? { sizeKb: info.sizeKb } : {}) },
      baseRef: resolved?.ref ?? request.ref ?? null,
      baseCommitSha: resolved?.sha ?? null,
      baseTreeSha: treeSha,
      clonePlan: plan,
      fetch: fetchStats,
      scan: scanStats,
      scope: scope ? { patterns: scope.patterns, matchedFileCount: scope.matched.length, missing: scope.missing } : null,
      warnings,
      ...(error ? { error } : {}),
      startedAt: iso(startedMs),
      completedAt: iso(completedMs),
      durationMs: completedMs - startedMs,
    });
  };
  const metrics = (status: IngestionStatus, reason?: string): Record<string, unknown> => ({
    event: status === 'READY' || status === 'READY_WITH_WARNINGS' ? 'repository_ingestion_completed' : 'repository_ingestion_failed',
    status,
    ...(reason ? { reason } : {}),
    repository: info ? `${info.owner}/${info.repo}` : undefined,
    baseRef: resolved?.ref ?? request.ref,
    baseCommitSha: resolved?.sha,
    strategy: plan?.strategy,
    durationMs: clock.now() - startedMs,
    fetchDurationMs: fetchStats?.durationMs,
    fetchBytes: fetchStats?.bytes ?? undefined,
    scanDurationMs: scanStats?.durationMs,
    fileCount: scanStats?.fileCount,
    totalBytes: scanStats?.totalBytes,
    repoSizeKb: info?.sizeKb,
    largeFileCount: policyScan?.counts.FILE_TOO_LARGE ?? 0,
    policyBlockCount: policyScan?.findings.filter((f) => f.severity === 'block').length ?? 0,
    scopedFileCount: scope?.matched.length,
    warningCount: warnings.length,
  });
  const fail = (reason: IngestionReason, message: string, data: Record<string, unknown> = {}, cause?: unknown): IngestionError => {
    const status: IngestionStatus = BLOCKING.has(reason) ? 'BLOCKED' : 'FAILED';
    enter(status);
    const report = buildReport(status, { reason, message });
    logger.warn('repository ingestion failed', metrics(status, reason));
    return new IngestionError(reason, message, { ...data, report, ...(policyScan ? { policyScan } : {}) }, cause === undefined ? undefined : { cause });
  };

  enter('REQUESTED');
  try {
    enter('AUTHORIZING');
    info = await source.info();
    if (info.sizeKb !== undefined && info.sizeKb > policy.maxRepoSizeMb * 1024) {
      throw fail('REPO_TOO_LARGE', `repository reports ${info.sizeKb} KiB, over the ${policy.maxRepoSizeMb} MiB limit`, { sizeKb: info.sizeKb, limitMb: policy.maxRepoSizeMb });
    }
    resolved = await source.resolveRef(request.ref);
    if (!resolved) throw fail('BASE_REF_NOT_FOUND', `base ref not found: ${request.ref ?? 'HEAD'}`, { ref: request.ref ?? 'HEAD' });
    const resolvedAt = iso(clock.now());
    plan = planClone({ info, policy, paths: request.paths, taskText: request.taskText });

    enter('CLONING');
    const fetchStart = clock.now();
    const limits = { maxFileCount: policy.maxFileCount, maxPathDepth: policy.maxPathDepth };
    const history = { depth: plan.depth, ...(plan.deepenSince ? { deepenSince: plan.deepenSince } : {}), ...(plan.filter ? { filter: plan.filter } : {}) };
    const fetched = await source.fetch({ fs, gitdir, ref: resolved.ref, commitSha: resolved.sha, maxBytes: plan.maxBytes, limits, ...history });
    fetchStats = { bytes: fetched.bytes ?? null, durationMs: clock.now() - fetchStart };
    warnings.push(...fetched.warnings);
    // What the source did; a source that does not say fetched depth 1 without a filter.
    const applied = fetched.applied ?? { depth: 1, fallback: 'the source fetches the base commit only' };
    if (plan.strategy !== 'shallow-object-backed' || fetched.applied) plan = { ...plan, applied };
    if (applied.fallback && plan.strategy !== 'shallow-object-backed') {
      warnings.push({ code: 'CLONE_PLAN_FALLBACK', message: `${plan.strategy} fetch not possible: ${applied.fallback}`, data: { strategy: plan.strategy, applied } });
    }
    const blobless = applied.filter === 'blob:none';
    const missing = onDemandObjects({
      source, fs, gitdir, ref: resolved.ref, commitSha: resolved.sha, maxBytes: plan.maxBytes, usedBytes: fetched.bytes ?? 0,
      maxObjectBytes: Math.floor(policy.maxFileSizeMb * 1024 * 1024), blobless, depth: applied.depth,
    });
    if (fetched.fetchedSha !== resolved.sha) {
      throw fail('BASE_MOVED_DURING_FETCH', 'the fetched commit is not the resolved base commit', { expected: resolved.sha, fetched: fetched.fetchedSha });
    }

    const scanStart = clock.now();
    const catalog = fetched.catalog ?? (await readPackCatalog(fs, gitdir, { maxTotalBytes: plan.maxBytes }));
    const objects = objectReader(fs, gitdir, catalog, blobless ? missing.blobs : undefined);
    const commit = await objects.entry(resolved.sha);
    if (commit.type !== 'commit' || !commit.content) throw fail('BASE_MOVED_DURING_FETCH', 'the base commit is not in the fetched objects', { expected: resolved.sha });
    treeSha = commitTree(commit.content);
    const baseTree = treeSha;
    const effective = request.resolvePolicy ? await request.resolvePolicy((path) => readTreeFile(objects, baseTree, path, policy.maxFileSizeMb * 1024 * 1024)) : policy;
    const scan = await scanTree({ treeOid: treeSha, policy: effective, objects });
    scope = resolveScope(request.paths, scan.files.map((f) => f.path), effective.forbiddenPaths);
    scanStats = { fileCount: scan.fileCount, totalBytes: scan.totalBytes, durationMs: clock.now() - scanStart };
    policyScan = PolicyScanArtifact.parse({
      schemaVersion: 1,
      baseCommitSha: resolved.sha,
      baseTreeSha: treeSha,
      decision: scan.blocked || scope.forbidden.length > 0 ? 'BLOCKED' : 'ALLOWED',
      fileCount: scan.fileCount,
      totalBytes: scan.totalBytes,
      counts: scan.counts,
      findings: scan.findings,
      symlinks: scan.symlinks,
      submodules: scan.submodules,
      lfs: scan.lfs,
      scope: { patterns: scope.patterns, missing: scope.missing, forbidden: scope.forbidden },
    });
    warnings.push(...summariseWarnings(scan));

    if (scan.blocked) {
      const reason = BLOCK_ORDER.find((r) => scan.findings.some((f) => f.severity === 'block' && f.code === r)) ?? 'HOSTILE_TREE_ENTRY';
      const blocking = scan.findings.filter((f) => f.severity === 'block');
      throw fail(reason, `repository refused by the policy scan: ${blocking.length} blocking finding(s)`, { findings: blocking.slice(0, 50) });
    }
    const reached = submodulesInScope([...(request.paths ?? []), ...(request.stepPaths ?? [])], scan.submodules.filter((s) => s.oid).map((s) => s.path));
    if (reached.length > 0) {
      const named = reached.map((r) => `${r.pattern} (submodule ${r.submodule})`).join(', ');
      throw fail('SUBMODULE_IN_SCOPE', `the task scope reaches into a submodule, which is never fetched or edited: ${named}`, { paths: reached });
    }
    if (scope.forbidden.length > 0) {
      throw fail('FORBIDDEN_PATH_IN_SCOPE', `the scope names forbidden paths: ${scope.forbidden.join(', ')}`, { paths: scope.forbidden });
    }
    if (scope.missing.length > 0) {
      if (effective.scopeMissing === 'error') throw fail('SCOPE_PATH_MISSING', `scoped paths match nothing: ${scope.missing.join(', ')}`, { paths: scope.missing });
      warnings.push({ code: 'SCOPE_PATH_MISSING', message: `scoped paths match nothing: ${scope.missing.join(', ')}`, data: { paths: scope.missing } });
    }

    // HEAD at the pinned base, as a clone leaves it: status and branches start from there.
    await git.writeRef({ fs, gitdir, ref: 'HEAD', value: resolved.sha, force: true });
    if (blobless) {
      const absent = await countAbsent(objects, scan.files);
      plan = { ...plan, reasons: [...plan.reasons, `${absent} blob(s) not fetched: each is fetched when its file is read, within the byte cap and the file size limit; their binary and LFS-pointer checks are skipped`] };
    }
    const workspace = await openWorkspace({ fs, gitdir, commitSha: resolved.sha, treeSha, files: scan.files, missing, packed: catalog });
    if (workspace.baseTreeSha !== treeSha || workspace.changes().length > 0 || workspace.paths().length !== scan.files.length) {
      throw fail('WORKSPACE_NOT_CLEAN', 'the initial workspace view differs from the base tree', { changes: workspace.changes().slice(0, 50) });
    }

    const status: 'READY' | 'READY_WITH_WARNINGS' = warnings.length > 0 ? 'READY_WITH_WARNINGS' : 'READY';
    enter(status);
    const report = buildReport(status);
    const baseRef = BaseRefArtifact.parse({
      schemaVersion: 1,
      repository: { owner: info.owner, repo: info.repo, displayUrl: info.displayUrl },
      baseRef: resolved.ref,
      baseCommitSha: resolved.sha,
      resolvedAt,
    });
    logger.info('repository ingestion completed', metrics(status));
    return { status, workspace, baseRef, report, policyScan, warnings, scopedPaths: scope.matched };
  } catch (error) {
    if (error instanceof IngestionError && error.data.report) throw error;
    if (error instanceof IngestionError) throw fail(error.reason, error.message, error.data, error);
    const status: IngestionStatus = 'FAILED';
    enter(status);
    logger.error('repository ingestion failed', { ...metrics(status), error: error instanceof Error ? error.name : 'unknown' });
    throw error;
  }
}

/**
 * Objects from the pack catalog, with isomorphic-git as the fallback for anything else. After a
 * blob:none fetch (`fetchBlobs` given) an object that is not there is a blob: its entry says
 * `absent`, and its content is fetched only when asked for (symlink targets, .gitmodules).
 */
function objectReader(fs: FsLike, gitdir: string, catalog: PackCatalog, fetchBlobs?: (oids: string[]) => Promise<void>): ObjectReader {
  const cache = {};
  const read = async (oid: string): Promise<{ type: ObjectType; content: Uint8Array }> => {
    const packed = catalog.read(oid);
    if (packed) return packed;
    try {
      const { type, object } = await git.readObject({ fs, gitdir, oid, format: 'content', cache });
      return { type: type as ObjectType, content: object as Uint8Array };
    } catch (error) {
      if (!fetchBlobs || (error as { code?: string }).code !== 'NotFoundError') throw error;
      await fetchBlobs([oid]);
      const { type, object } = await git.readObject({ fs, gitdir, oid, format: 'content', cache: {} });
      return { type: type as ObjectType, content: object as Uint8Array };
    }
  };
  return {
    known: (oid: string) => catalog.get(oid),
    entry: async (oid: string): Promise<CatalogEntry> => {
      const known = catalog.get(oid);
      if (known) return known;
      // Every commit and tree of a blob:none fetch is in its pack, so anything else is a blob left out.
      if (fetchBlobs) return { type: 'blob', size: 0, absent: true };
      const { type, content } = await read(oid);
      if (type !== 'blob') return { type, size: content.byteLength, content };
      return { type, size: content.byteLength, ...blobFacts(content) };
    },
    blob: async (oid: string): Promise<Uint8Array> => (await read(oid)).content,
  };
}

/**
 * One file of a tree by path (a top-level `.agent-policy.yaml`, typically); undefined when
 * absent or not a blob. Its size is checked before it is inflated: FILE_TOO_LARGE over `maxBytes`.
 */
async function readTreeFile(objects: ObjectReader, treeOid: string, path: string, maxBytes: number): Promise<Uint8Array | undefined> {
  let oid = treeOid;
  for (const name of path.split('/')) {
    const tree = await objects.entry(oid);
    if (tree.type !== 'tree' || !tree.content) return undefined;
    const found = parseTreeEntries(tree.content).find((e) => e.name === name);
    if (!found) return undefined;
    oid = found.oid;
  }
  const blob = await objects.entry(oid);
  if (blob.type !== 'blob') return undefined;
  if (blob.size > maxBytes) throw new IngestionError('FILE_TOO_LARGE', `${path} is ${blob.size} bytes, over the ${maxBytes} byte file limit`, { path, sizeBytes: blob.size, limitBytes: maxBytes });
  return objects.blob(oid);
}

async function countAbsent(objects: ObjectReader, files: { mode: string; oid: string }[]): Promise<number> {
  let absent = 0;
  for (const file of files) if (file.mode !== '160000' && (await objects.entry(file.oid)).absent) absent++;
  return absent;
}

function commitTree(content: Uint8Array): string {
  const match = /^tree ([0-9a-f]{40})$/m.exec(new TextDecoder().decode(content.subarray(0, 200)));
  if (!match) throw new Error('commit object has no tree');
  return match[1];
}

/** One warning per finding code, with a count and the first paths, so reports stay small. */
function summariseWarnings(scan: PolicyScanResult): IngestionWarning[] {
  const byCode = new Map<string, Finding[]>();
  for (const finding of scan.findings) {
    if (finding.severity !== 'warn') continue;
    byCode.set(finding.code, [...(byCode.get(finding.code) ?? []), finding]);
  }
  return [...byCode].map(([code, list]) => {
    const count = scan.counts[list[0].code] ?? list.length;
    return { code, message: `${count} finding(s): ${list[0].message}`, data: { count, paths: list.slice(0, 20).map((f) => f.path) } };
  });
}
