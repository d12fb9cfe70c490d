import git from 'isomorphic-git';
import { IngestionError, type IngestionReason } from '../errors.js';
import type { Clock, FsLike, Logger } from '../ports.js';
import type { FetchApplied, FetchResult, RepoInfo, RepoSource } from './repo-source.js';
import { openWorkspace, type MissingObjects, type ObjectWorkspace } from '../workspace/workspace.js';
import { BaseRefArtifact, PolicyScanArtifact, type ClonePlan, type IngestionArtifact, type IngestionStatus, type IngestionWarning } from './artifacts.js';
import { planClone } from './clone-plan.js';
import { IngestionRun } from './ingestion-run.js';
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

/** When a tree is blocked for several reasons, the most dangerous one names the failure. */
const BLOCK_ORDER: IngestionReason[] = ['HOSTILE_TREE_ENTRY', 'FORBIDDEN_SYMLINK', 'SUBMODULE_BLOCKED', 'LFS_BLOCKED', 'FILE_COUNT_EXCEEDED'];

type ResolvedBase = { ref: string; sha: string };

/** Repository facts against the size limit, then the base ref to a SHA, and the clone plan. Returns when the ref was resolved. */
async function authorize(request: IngestRequest, run: IngestionRun): Promise<{ info: RepoInfo; resolved: ResolvedBase; resolvedAt: string }> {
  const { source, policy } = request;
  run.enter('AUTHORIZING');
  const info = (run.info = await source.info());
  if (info.sizeKb !== undefined && info.sizeKb > policy.maxRepoSizeMb * 1024) {
    throw run.fail('REPO_TOO_LARGE', `repository reports ${info.sizeKb} KiB, over the ${policy.maxRepoSizeMb} MiB limit`, {
      sizeKb: info.sizeKb,
      limitMb: policy.maxRepoSizeMb,
    });
  }
  const resolved = (run.resolved = await source.resolveRef(request.ref));
  if (!resolved) throw run.fail('BASE_REF_NOT_FOUND', `base ref not found: ${request.ref ?? 'HEAD'}`, { ref: request.ref ?? 'HEAD' });
  const resolvedAt = run.now();
  run.plan = planClone({ info, policy, paths: request.paths, taskText: request.taskText });
  return { info, resolved, resolvedAt };
}

/** What the fetch brought: its result, whether blobs were left out, and how missing objects are fetched later. */
interface FetchedBase {
  fetched: FetchResult;
  plan: ClonePlan;
  blobless: boolean;
  missing: MissingObjects;
}

/** The plan as the source applied it; a fallback from the planned history is a warning. */
function appliedPlan(run: IngestionRun, plan: ClonePlan, fetched: FetchResult): { plan: ClonePlan; applied: FetchApplied } {
  // What the source did; a source that does not say fetched depth 1 without a filter.
  const applied = fetched.applied ?? { depth: 1, fallback: 'the source fetches the base commit only' };
  const shallow = plan.strategy === 'shallow-object-backed';
  const actual = !shallow || fetched.applied ? { ...plan, applied } : plan;
  if (applied.fallback && !shallow) {
    run.warnings.push({
      code: 'CLONE_PLAN_FALLBACK',
      message: `${actual.strategy} fetch not possible: ${applied.fallback}`,
      data: { strategy: actual.strategy, applied },
    });
  }
  return { plan: actual, applied };
}

/** Fetches exactly the resolved commit (with the history the plan asks for) into the object store. */
async function fetchBase(request: IngestRequest, run: IngestionRun, resolved: ResolvedBase, planned: ClonePlan): Promise<FetchedBase> {
  const { source, fs, gitdir, policy, clock } = request;
  run.enter('CLONING');
  const fetchStart = clock.now();
  const limits = { maxFileCount: policy.maxFileCount, maxPathDepth: policy.maxPathDepth };
  const history = {
    depth: planned.depth,
    ...(planned.deepenSince ? { deepenSince: planned.deepenSince } : {}),
    ...(planned.filter ? { filter: planned.filter } : {}),
  };
  const fetched = await source.fetch({ fs, gitdir, ref: resolved.ref, commitSha: resolved.sha, maxBytes: planned.maxBytes, limits, ...history });
  run.fetchStats = { bytes: fetched.bytes ?? null, durationMs: clock.now() - fetchStart };
  run.warnings.push(...fetched.warnings);
  const { plan, applied } = appliedPlan(run, planned, fetched);
  run.plan = plan;
  const blobless = applied.filter === 'blob:none';
  const missing = onDemandObjects({
    source,
    fs,
    gitdir,
    ref: resolved.ref,
    commitSha: resolved.sha,
    maxBytes: plan.maxBytes,
    usedBytes: fetched.bytes ?? 0,
    maxObjectBytes: Math.floor(policy.maxFileSizeMb * 1024 * 1024),
    blobless,
    depth: applied.depth,
  });
  if (fetched.fetchedSha !== resolved.sha) {
    throw run.fail('BASE_MOVED_DURING_FETCH', 'the fetched commit is not the resolved base commit', { expected: resolved.sha, fetched: fetched.fetchedSha });
  }
  return { fetched, plan, blobless, missing };
}

/** The base commit's trees scanned against the (possibly repository-given) policy, and the scope applied. */
interface ScannedBase {
  catalog: PackCatalog;
  objects: ObjectReader;
  treeSha: string;
  scan: PolicyScanResult;
  scope: ScopeResult;
  effective: IngestionPolicy;
  policyScan: PolicyScanArtifact;
}

async function scanBase(request: IngestRequest, run: IngestionRun, resolved: ResolvedBase, base: FetchedBase): Promise<ScannedBase> {
  const { fs, gitdir, policy, clock } = request;
  const scanStart = clock.now();
  const catalog = base.fetched.catalog ?? (await readPackCatalog(fs, gitdir, { maxTotalBytes: base.plan.maxBytes }));
  const objects = objectReader(fs, gitdir, catalog, base.blobless ? base.missing.blobs : undefined);
  const commit = await objects.entry(resolved.sha);
  if (commit.type !== 'commit' || !commit.content)
    throw run.fail('BASE_MOVED_DURING_FETCH', 'the base commit is not in the fetched objects', { expected: resolved.sha });
  const treeSha = (run.treeSha = commitTree(commit.content));
  const effective = request.resolvePolicy
    ? await request.resolvePolicy((path) => readTreeFile(objects, treeSha, path, policy.maxFileSizeMb * 1024 * 1024))
    : policy;
  const scan = await scanTree({ treeOid: treeSha, policy: effective, objects });
  const scope = (run.scope = resolveScope(
    request.paths,
    scan.files.map((f) => f.path),
    effective.forbiddenPaths,
  ));
  run.scanStats = { fileCount: scan.fileCount, totalBytes: scan.totalBytes, durationMs: clock.now() - scanStart };
  const policyScan = (run.policyScan = PolicyScanArtifact.parse({
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
  }));
  run.warnings.push(...summariseWarnings(scan));
  return { catalog, objects, treeSha, scan, scope, effective, policyScan };
}

/** Refuses a blocked tree, a scope that reaches into a submodule or names forbidden paths, and (if the policy says so) a scope that matches nothing. */
function checkScan(request: IngestRequest, run: IngestionRun, { scan, scope, effective }: ScannedBase): void {
  if (scan.blocked) {
    const reason = BLOCK_ORDER.find((r) => scan.findings.some((f) => f.severity === 'block' && f.code === r)) ?? 'HOSTILE_TREE_ENTRY';
    const blocking = scan.findings.filter((f) => f.severity === 'block');
    throw run.fail(reason, `repository refused by the policy scan: ${blocking.length} blocking finding(s)`, { findings: blocking.slice(0, 50) });
  }
  const reached = submodulesInScope(
    [...(request.paths ?? []), ...(request.stepPaths ?? [])],
    scan.submodules.filter((s) => s.oid).map((s) => s.path),
  );
  if (reached.length > 0) {
    const named = reached.map((r) => `${r.pattern} (submodule ${r.submodule})`).join(', ');
    throw run.fail('SUBMODULE_IN_SCOPE', `the task scope reaches into a submodule, which is never fetched or edited: ${named}`, { paths: reached });
  }
  if (scope.forbidden.length > 0) {
    throw run.fail('FORBIDDEN_PATH_IN_SCOPE', `the scope names forbidden paths: ${scope.forbidden.join(', ')}`, { paths: scope.forbidden });
  }
  if (scope.missing.length > 0) {
    if (effective.scopeMissing === 'error')
      throw run.fail('SCOPE_PATH_MISSING', `scoped paths match nothing: ${scope.missing.join(', ')}`, { paths: scope.missing });
    run.warnings.push({ code: 'SCOPE_PATH_MISSING', message: `scoped paths match nothing: ${scope.missing.join(', ')}`, data: { paths: scope.missing } });
  }
}

/** HEAD at the pinned base, as a clone leaves it (status and branches start from there), and the workspace over the base tree, checked clean. */
async function openBase(request: IngestRequest, run: IngestionRun, resolved: ResolvedBase, base: FetchedBase, scanned: ScannedBase): Promise<ObjectWorkspace> {
  const { fs, gitdir } = request;
  const { scan, treeSha } = scanned;
  await git.writeRef({ fs, gitdir, ref: 'HEAD', value: resolved.sha, force: true });
  if (base.blobless) {
    const absent = await countAbsent(scanned.objects, scan.files);
    const plan = base.plan;
    run.plan = {
      ...plan,
      reasons: [
        ...plan.reasons,
        `${absent} blob(s) not fetched: each is fetched when its file is read, within the byte cap and the file size limit; their binary and LFS-pointer checks are skipped`,
      ],
    };
  }
  const workspace = await openWorkspace({ fs, gitdir, commitSha: resolved.sha, treeSha, files: scan.files, missing: base.missing, packed: scanned.catalog });
  if (workspace.baseTreeSha !== treeSha || workspace.changes().length > 0 || workspace.paths().length !== scan.files.length) {
    throw run.fail('WORKSPACE_NOT_CLEAN', 'the initial workspace view differs from the base tree', { changes: workspace.changes().slice(0, 50) });
  }
  return workspace;
}

/**
 * Repository ingestion: resolve the base ref to a SHA first, fetch
 * exactly that commit (depth 1) into the injected object store, scan the trees against the
 * policy before anything is materialised, apply the scope, and open the object-backed
 * workspace. Returns the three artifacts; throws `IngestionError` (with `data.report`, and
 * `data.policyScan` once the scan ran) when ingestion fails or is blocked. One structured
 * log line per ingestion either way.
 */
export async function ingestRepository(request: IngestRequest): Promise<IngestResult> {
  const { logger } = request;
  const run = new IngestionRun(request);
  run.enter('REQUESTED');
  try {
    const { info, resolved, resolvedAt } = await authorize(request, run);
    const fetched = await fetchBase(request, run, resolved, run.plan!);
    const scanned = await scanBase(request, run, resolved, fetched);
    checkScan(request, run, scanned);
    const workspace = await openBase(request, run, resolved, fetched, scanned);
    const warnings = run.warnings;
    const status: 'READY' | 'READY_WITH_WARNINGS' = warnings.length > 0 ? 'READY_WITH_WARNINGS' : 'READY';
    run.enter(status);
    const report = run.report(status);
    const baseRef = BaseRefArtifact.parse({
      schemaVersion: 1,
      repository: { owner: info.owner, repo: info.repo, displayUrl: info.displayUrl },
      baseRef: resolved.ref,
      baseCommitSha: resolved.sha,
      resolvedAt,
    });
    logger.info('repository ingestion completed', run.metrics(status));
    return { status, workspace, baseRef, report, policyScan: scanned.policyScan, warnings, scopedPaths: scanned.scope.matched };
  } catch (error) {
    if (error instanceof IngestionError && error.data.report) throw error;
    if (error instanceof IngestionError) throw run.fail(error.reason, error.message, error.data, error);
    const status: IngestionStatus = 'FAILED';
    run.enter(status);
    logger.error('repository ingestion failed', { ...run.metrics(status), error: error instanceof Error ? error.name : 'unknown' });
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
  if (blob.size > maxBytes)
    throw new IngestionError('FILE_TOO_LARGE', `${path} is ${blob.size} bytes, over the ${maxBytes} byte file limit`, {
      path,
      sizeBytes: blob.size,
      limitBytes: maxBytes,
    });
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
