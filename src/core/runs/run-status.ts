/** Every status a command or run can end in. */
export const RUN_STATUSES = [
  'READY',
  'READY_WITH_WARNINGS',
  'COMPLETED',
  'FAILED',
  'BLOCKED',
  'NEEDS_APPROVAL',
  'BUDGET_EXCEEDED',
  'CANCELLED',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

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
