import { parseTask } from '../task/parse-task.js';
import type { TaskContract } from '../task/task-contract.js';
import type { RunRequest } from './run-request.js';

/**
 * The task a run's snapshot asks for: the issue's (App) or the CLI task's title and body, the
 * triggering comment, and the forced mode. The one reading of a snapshot into a TaskContract, so
 * ingestion, intake and publication agree on the task. `commandPrefix` is the trusted policy's
 * (`/agent` when the caller has no policy yet). Throws TaskError for an invalid task block.
 */
export function taskFromSnapshot(snapshot: RunRequest, commandPrefix?: string): TaskContract {
  const text = snapshot.issue ?? snapshot.task ?? { title: '', body: '' };
  return parseTask({
    title: text.title,
    body: text.body,
    comment: snapshot.comment?.body,
    forcedMode: snapshot.forcedMode,
    source: snapshot.issue ? 'github' : 'cli',
    commandPrefix,
  });
}
