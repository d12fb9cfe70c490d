import { writeArtifact } from '../../../core/artifacts/artifact-io.js';
import { releaseIssueLock } from '../../../core/runs/issue-lock.js';
import { removeWaiting } from '../../../core/runs/run-queue.js';
import { admitRuns } from '../../queue/run-admission.js';
import { CancelMarker } from '../../../core/runs/run-state.js';
import { renderProgressComment } from '../../github/progress-comment.js';
import { TEXTS } from '../texts.js';
import type { TriggerOutcome } from '../trigger-outcome.js';
import type { WebhookSession } from '../webhook-session.js';
import type { CommandContext } from './command-context.js';
import { readLatestRun } from './latest-run.js';

/** `/agent cancel` (the comment's author was checked by the router). */
export function cancelCommand({ session, payload }: CommandContext): Promise<TriggerOutcome> {
  return cancelLatestRun(session, payload.issue.number, payload.sender.login, 'cancelled by /agent cancel');
}

/**
 * Cancel the issue's latest run: the cancel marker (the worker stops at its next step, the
 * publisher refuses), the lock released, the progress comment says so. A run waiting in the
 * queue leaves it (it never starts) and the runs behind it move up. Whoever asks must have passed
 * the permission rule already (command or issue close).
 */
export async function cancelLatestRun(session: WebhookSession, issueNumber: number, sender: string, reason: string): Promise<TriggerOutcome> {
  const { store, clock } = session.deps;
  const found = await readLatestRun(session, issueNumber);
  if (!found) {
    await session.reply(issueNumber, TEXTS.noRunTo('cancel'));
    return { kind: 'replied', why: 'no run' };
  }
  const { latest, keys, progressCommentId } = found;
  const now = new Date(clock.now()).toISOString();
  const wasWaiting = found.waiting ? (await removeWaiting(store, session.owner, session.repo, latest.runId)) !== undefined : false;
  await writeArtifact(store, keys.cancel, CancelMarker, { schemaVersion: 1, runId: latest.runId, attempt: latest.attempt, by: sender, reason, at: now });
  await releaseIssueLock(store, { ...session.ref, issue: issueNumber }, { runId: latest.runId, attempt: latest.attempt });
  await session.editComment(
    progressCommentId,
    renderProgressComment({
      runId: latest.runId,
      attempt: latest.attempt,
      status: 'CANCELLED',
      phases: [],
      message: wasWaiting ? `${reason} (@${sender}) while it waited in line; it never started` : `${reason} (@${sender}); the worker stops at its next step`,
    }),
  );
  // The runs behind it move up a place (or start, when it held them back).
  if (wasWaiting) await admitRuns(session.deps, { ...session.ref, api: () => session.api() });
  return { kind: 'cancelled', runId: latest.runId };
}
