import { z } from 'zod';

/** Every status a command or run can end in. */
export const RUN_STATUSES = ['READY', 'READY_WITH_WARNINGS', 'COMPLETED', 'FAILED', 'BLOCKED', 'NEEDS_APPROVAL', 'BUDGET_EXCEEDED', 'CANCELLED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * Where an attempt stands in `run.json`'s `attempts`: waiting for a worker, running, or one of
 * the statuses an attempt ends in.
 */
export const AttemptStatus = z.enum(['QUEUED', 'RUNNING', ...RUN_STATUSES]);
export type AttemptStatus = z.infer<typeof AttemptStatus>;

/**
 * Where a run stands (`run.json`'s `status`): an attempt's status, then what the publisher and
 * CI feedback make of it (the pull request published, then merged or closed). Which writer may
 * move a run from one to another is `RUN_TRANSITIONS` (run-transitions.ts).
 */
export const RunRecordStatus = z.enum([...AttemptStatus.options, 'PUBLISHED', 'MERGED', 'CLOSED']);
export type RunRecordStatus = z.infer<typeof RunRecordStatus>;

/** A run a worker is still supposed to move: the sweeper fails it when it stops moving. */
export const ACTIVE_RUN_STATUSES: ReadonlySet<RunRecordStatus> = new Set(['QUEUED', 'RUNNING']);

/** A run whose pull request closed: nothing keeps it current, polls it, or starts attempts on it. */
export const CLOSED_RUN_STATUSES: ReadonlySet<RunRecordStatus> = new Set(['MERGED', 'CLOSED']);

/** The CLI exit code for a final status. Usage errors are 2 and never reach here. */
export function exitCodeFor(status: RunStatus): number {
  switch (status) {
    case 'READY':
    case 'READY_WITH_WARNINGS':
    case 'COMPLETED':
      return 0;
    case 'FAILED':
    case 'BLOCKED':
      return 1;
    case 'NEEDS_APPROVAL':
    case 'BUDGET_EXCEEDED':
      return 3;
    case 'CANCELLED':
      return 130;
  }
}

export const EXIT_USAGE = 2;
