import { readArtifactIfPresent } from '../../../core/artifacts/artifact-io.js';
import { issueLatestKey, runKeys } from '../../../core/artifacts/keys.js';
import { RunRecord } from '../../../core/runs/run-request.js';
import { IssueLatest } from '../../../core/runs/run-state.js';
import { TEXTS } from '../texts.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import type { CommandContext } from './command-context.js';

/** `/agent status`: where the issue's latest run stands. Anyone may ask. */
export async function statusCommand({ session, payload }: CommandContext): Promise<TriggerOutcome> {
  const { store } = session.deps;
  const issueNumber = payload.issue.number;
  const latest = await readArtifactIfPresent(store, issueLatestKey(session.owner, session.repo, issueNumber), IssueLatest);
  if (!latest) {
    await session.reply(issueNumber, TEXTS.noRunYet);
    return { kind: 'replied', why: 'no run' };
  }
  const run = await readArtifactIfPresent(store, runKeys(session.owner, session.repo, latest.runId).run, RunRecord);
  await session.reply(issueNumber, TEXTS.status(latest.runId, latest.attempt, run?.status ?? 'QUEUED', latest.progressCommentId));
  return { kind: 'replied', why: 'status' };
}
