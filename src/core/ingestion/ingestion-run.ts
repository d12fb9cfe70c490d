import { IngestionError, type IngestionReason } from '../errors.js';
import type { Clock, Logger } from '../ports.js';
import { IngestionArtifact, type ClonePlan, type IngestionStatus, type IngestionWarning, type PolicyScanArtifact } from './artifacts.js';
import type { RepoInfo } from './repo-source.js';
import type { ScopeResult } from './scope.js';

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

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * What one ingestion (`ingest-repository.ts`) knows so far, as its stages learn it: the report,
 * the log line and the error of a failure are made from whatever is known when they happen.
 */
export class IngestionRun {
  readonly startedMs: number;
  readonly history: { status: IngestionStatus; at: string }[] = [];
  readonly warnings: IngestionWarning[] = [];
  info: RepoInfo | undefined;
  resolved: { ref: string; sha: string } | undefined;
  treeSha: string | null = null;
  plan: ClonePlan | null = null;
  fetchStats: { bytes: number | null; durationMs: number } | null = null;
  scanStats: { fileCount: number; totalBytes: number; durationMs: number } | null = null;
  scope: ScopeResult | undefined;
  policyScan: PolicyScanArtifact | undefined;

  constructor(private readonly request: { ref?: string; clock: Clock; logger: Logger }) {
    this.startedMs = request.clock.now();
  }

  /** The clock's time now, as the artifacts write it. */
  now(): string {
    return iso(this.request.clock.now());
  }

  enter(status: IngestionStatus): void {
    this.history.push({ status, at: this.now() });
  }

  private repository(): IngestionArtifact['repository'] {
    const info = this.info;
    if (!info) return { owner: 'unknown', repo: 'unknown', displayUrl: 'unknown' };
    return { owner: info.owner, repo: info.repo, displayUrl: info.displayUrl, ...(info.sizeKb !== undefined ? { sizeKb: info.sizeKb } : {}) };
  }

  report(status: IngestionStatus, error?: { reason: string; message: string }): IngestionArtifact {
    const completedMs = this.request.clock.now();
    const scope = this.scope;
    return IngestionArtifact.parse({
      schemaVersion: 1,
      status,
      statusHistory: this.history,
      repository: this.repository(),
      baseRef: this.resolved?.ref ?? this.request.ref ?? null,
      baseCommitSha: this.resolved?.sha ?? null,
      baseTreeSha: this.treeSha,
      clonePlan: this.plan,
      fetch: this.fetchStats,
      scan: this.scanStats,
      scope: scope ? { patterns: scope.patterns, matchedFileCount: scope.matched.length, missing: scope.missing } : null,
      warnings: this.warnings,
      ...(error ? { error } : {}),
      startedAt: iso(this.startedMs),
      completedAt: iso(completedMs),
      durationMs: completedMs - this.startedMs,
    });
  }

  private fetchMetrics(): Record<string, unknown> {
    return {
      repository: this.info ? `${this.info.owner}/${this.info.repo}` : undefined,
      baseRef: this.resolved?.ref ?? this.request.ref,
      baseCommitSha: this.resolved?.sha,
      strategy: this.plan?.strategy,
      durationMs: this.request.clock.now() - this.startedMs,
      fetchDurationMs: this.fetchStats?.durationMs,
      fetchBytes: this.fetchStats?.bytes ?? undefined,
    };
  }

  private scanMetrics(): Record<string, unknown> {
    return {
      scanDurationMs: this.scanStats?.durationMs,
      fileCount: this.scanStats?.fileCount,
      totalBytes: this.scanStats?.totalBytes,
      repoSizeKb: this.info?.sizeKb,
      largeFileCount: this.policyScan?.counts.FILE_TOO_LARGE ?? 0,
      policyBlockCount: this.policyScan?.findings.filter((f) => f.severity === 'block').length ?? 0,
      scopedFileCount: this.scope?.matched.length,
      warningCount: this.warnings.length,
    };
  }

  /** The one structured log line of an ingestion. */
  metrics(status: IngestionStatus, reason?: string): Record<string, unknown> {
    return {
      event: status === 'READY' || status === 'READY_WITH_WARNINGS' ? 'repository_ingestion_completed' : 'repository_ingestion_failed',
      status,
      ...(reason ? { reason } : {}),
      ...this.fetchMetrics(),
      ...this.scanMetrics(),
    };
  }

  /** Ends the run BLOCKED (a policy decision) or FAILED: logs it, and returns the error to throw, carrying the report. */
  fail(reason: IngestionReason, message: string, data: Record<string, unknown> = {}, cause?: unknown): IngestionError {
    const status: IngestionStatus = BLOCKING.has(reason) ? 'BLOCKED' : 'FAILED';
    this.enter(status);
    const report = this.report(status, { reason, message });
    this.request.logger.warn('repository ingestion failed', this.metrics(status, reason));
    return new IngestionError(
      reason,
      message,
      { ...data, report, ...(this.policyScan ? { policyScan: this.policyScan } : {}) },
      cause === undefined ? undefined : { cause },
    );
  }
}
