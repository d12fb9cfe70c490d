import type { RunRecord } from './run-request.js';
import { RunStateError } from './run-state-error.js';
import { RunRecordStatus } from './run-status.js';

/**
 * The trusted writers of `run.json` (docs/architecture.md, "Run state"). The webhook and the
 * dispatcher write requests, locks and markers, never the run record.
 * - `worker`: ends an attempt (the pipeline's own record, or the worker stopping it early); the
 *   CLI runs the same pipeline and writes as the worker does.
 * - `publisher`: records the publication of a candidate, its refusal, or the rerun it asked for.
 * - `ci-feedback`: closes the run out when its pull request is merged or closed.
 * - `sweeper`: fails an active run that stopped moving, and a completed run whose pull request
 *   could not be opened within the publication retries (src/app/sweeper/sweep-publications.ts).
 */
export const RUN_WRITERS = ['worker', 'publisher', 'ci-feedback', 'sweeper'] as const;
export type RunWriter = (typeof RUN_WRITERS)[number];

/** What a transition starts from: a stored status, or `NONE` when there is no `run.json` yet. */
export type RunPredecessor = RunRecordStatus | 'NONE';

const STATUSES = RunRecordStatus.options;
const ACTIVE = ['NONE', 'QUEUED', 'RUNNING'] as const;
/** An attempt ends after any earlier state of its run but a closed pull request's. */
const ATTEMPT_MAY_END_AFTER: readonly RunPredecessor[] = ['NONE', ...STATUSES.filter((s) => s !== 'MERGED' && s !== 'CLOSED')];
/**
 * The publisher handles a candidate (its attempt COMPLETED), again after a refusal or a rerun
 * (a replay or a redelivery), and after the sweeper failed a slow attempt whose candidate did arrive.
 */
const CANDIDATE_STATES: readonly RunPredecessor[] = [...ACTIVE, 'COMPLETED', 'FAILED', 'BLOCKED', 'PUBLISHED'];

interface TransitionRule {
  by: RunWriter;
  from: readonly RunPredecessor[];
}

const workerEnds: TransitionRule = { by: 'worker', from: ATTEMPT_MAY_END_AFTER };
const publisher: TransitionRule = { by: 'publisher', from: CANDIDATE_STATES };
/** A pull request closes whatever its run is doing; a second close event (after a reopen) closes it again. */
const closesOut: TransitionRule = { by: 'ci-feedback', from: STATUSES };

/**
 * For each status a run can move to: who may move it there, and from which statuses. The only
 * statement of the run's life cycle; every writer goes through `transition`.
 */
export const RUN_TRANSITIONS: Readonly<Record<RunRecordStatus, readonly TransitionRule[]>> = {
  QUEUED: [publisher],
  // No writer records RUNNING: a running attempt shows on its progress comment. A stored RUNNING is still read as active.
  RUNNING: [],
  READY: [workerEnds],
  READY_WITH_WARNINGS: [workerEnds],
  COMPLETED: [workerEnds],
  FAILED: [workerEnds, { by: 'sweeper', from: [...ACTIVE, 'COMPLETED'] }],
  BLOCKED: [workerEnds, publisher],
  NEEDS_APPROVAL: [workerEnds],
  BUDGET_EXCEEDED: [workerEnds],
  // The publisher records a cancel it found before publishing, in the words the comment uses
  // (again when the candidate's notification comes twice).
  CANCELLED: [workerEnds, { by: 'publisher', from: [...CANDIDATE_STATES, 'CANCELLED'] }],
  PUBLISHED: [publisher],
  MERGED: [closesOut],
  CLOSED: [closesOut],
};

/** Whether `by` may move a run from `from` to `to`. */
export function isTransitionAllowed(from: RunPredecessor, to: RunRecordStatus, by: RunWriter): boolean {
  return RUN_TRANSITIONS[to].some((rule) => rule.by === by && rule.from.includes(from));
}

/**
 * `next` as `by` wants to store it, once the machine agrees that `by` may move the run from
 * `current`'s status (`NONE` without a record) to `next.status`; otherwise a RunStateError
 * TRANSITION_REFUSED. The machine decides; `updateRunRecord` writes.
 */
export function transition(current: RunRecord | undefined, next: RunRecord, options: { by: RunWriter }): RunRecord {
  const from: RunPredecessor = current?.status ?? 'NONE';
  if (!isTransitionAllowed(from, next.status, options.by)) {
    throw new RunStateError('TRANSITION_REFUSED', `the ${options.by} may not move run ${next.runId} from ${from} to ${next.status}`, {
      runId: next.runId,
      from,
      to: next.status,
      by: options.by,
    });
  }
  return next;
}
