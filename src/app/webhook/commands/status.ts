import { readArtifactIfPresent } from '../../../core/artifacts/artifact-io.js';
import { RunRecord } from '../../../core/runs/run-request.js';
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
  await session.reply(issueNumber, TEXTS.status(found.latest.runId, found.latest.attempt, run?.status ?? 'QUEUED', found.progressCommentId));
  return { kind: 'replied', why: 'status' };
}
