import { writeArtifact } from '../../core/artifacts/artifact-io.js';
import type { ArtifactStore, Clock, RunProgress, RunReporter } from '../../core/ports.js';
import { AttemptProgress } from '../../core/runs/run-state.js';
import { clip } from '../../core/text/report-markdown.js';

/** Longest message, task echo and report a progress object carries (the schema's bounds). */
const MESSAGE_CHARS = 2000;
const REPORT_CHARS = 65536;

/**
 * Where a worker reports: `attempts/<n>/progress.json`, rewritten whole on every change. The
 * worker's token cannot write on GitHub; the publisher, which can, shows the progress comment
 * from this object (docs/trust-chain.md, "The progress comment and the lock").
 */
export class StoredProgressReporter implements RunReporter {
  constructor(
    private readonly store: ArtifactStore,
    private readonly key: string,
    private readonly clock: Clock,
  ) {}

  async report(progress: RunProgress): Promise<void> {
    await writeArtifact(this.store, this.key, AttemptProgress, {
      schemaVersion: 1,
      runId: progress.runId,
      attempt: progress.attempt,
      status: progress.status as AttemptProgress['status'],
      message: progress.message === undefined ? undefined : clip(progress.message, MESSAGE_CHARS),
      phases: progress.phases,
      baseCommitSha: progress.baseCommitSha,
      taskEcho: progress.taskEcho === undefined ? undefined : clip(progress.taskEcho, REPORT_CHARS),
      artifacts: progress.artifacts,
      ended: progress.ended && {
        ...progress.ended,
        status: progress.ended.status as NonNullable<AttemptProgress['ended']>['status'],
        reason: progress.ended.reason === undefined ? undefined : clip(progress.ended.reason, MESSAGE_CHARS),
        analysisReport: progress.ended.analysisReport === undefined ? undefined : clip(progress.ended.analysisReport, REPORT_CHARS),
      },
      at: new Date(this.clock.now()).toISOString(),
    });
  }
}
