import type { FollowUp } from './follow-up.js';
import { followUpWork } from './follow-up-task.js';
import type { RunRequest } from './run-request.js';
import { taskFromSnapshot } from './snapshot-task.js';

/**
 * Whether an attempt's work asks for a model, decided before its first phase as planning would:
 * a follow-up unless a revision carries recipe steps; otherwise a change task without recipe
 * steps. Analysis and recipe tasks run without one. A task that does not parse needs none here:
 * intake reports its problems.
 */
export function attemptNeedsModel(request: RunRequest, followUp: FollowUp | undefined): boolean {
  try {
    if (followUp) return followUpWork(followUp, true, request.issue?.title) !== 'steps';
    const task = taskFromSnapshot(request);
    return task.mode !== 'analysis' && task.steps.length === 0;
  } catch {
    return false;
  }
}
