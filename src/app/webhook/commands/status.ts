import { readArtifactIfPresent } from '../../../core/artifacts/artifact-io.js';
import { RunRecord } from '../../../core/runs/run-request.js';
import { CancelMarker } from '../../../core/runs/run-state.js';
import { TEXTS } from '../texts.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import type { CommandContext } from './command-context.js';
import { readLatestRun } from './latest-run.js';

/** `/agent status`: where the issue's latest run stands. Anyone may ask. */
export async function statusCommand({ session, payload }: CommandContext): Promise<TriggerOutcome> {
  const { store } = session.deps;
  const issueNumber = payload.issue.number;
  const found = await readLatestRun(session, issueNumber);
  if (!found) {
    await session.reply(issueNumber, TEXTS.noRunYet);
    return { kind: 'replied', why: 'no run' };
  }
  const run = await readArtifactIfPresent(store, found.keys.run, RunRecord);
  // An attempt asked for but not started by a worker yet has no status of its own in run.json.
  const cancelled = await readArtifactIfPresent(store, found.keys.cancel, CancelMarker);
  const status = run && run.attempt >= found.latest.attempt ? run.status : cancelled && cancelled.attempt >= found.latest.attempt ? 'CANCELLED' : 'QUEUED';
  await session.reply(issueNumber, TEXTS.status(found.latest.runId, found.latest.attempt, status, found.progressCommentId));
  return { kind: 'replied', why: 'status' };
}
