import { AgentError } from '../errors.js';
import { formatProblems, type DocumentProblem } from '../policy/document-problem.js';

export const TASK_REASONS = ['TASK_BLOCK_INVALID', 'TASK_BLOCK_TOO_LARGE', 'TASK_TEXT_TOO_LARGE'] as const;
export type TaskReason = (typeof TASK_REASONS)[number];

export interface TaskErrorData extends Record<string, unknown> {
  problems: DocumentProblem[];
}

/**
 * The task text cannot become a TaskContract. Problems carry lines relative to the document the
 * block came from (the issue body or the comment), so the reply can point at them.
 */
export class TaskError extends AgentError<TaskReason> {
  declare readonly data: TaskErrorData;

  constructor(reason: TaskReason, message: string, data: TaskErrorData, options?: { cause?: unknown }) {
    super(reason, message, data, options);
  }

  /** `document:line:col: message` lines for the reply comment and the CLI. */
  format(): string {
    return formatProblems(this.data.problems);
  }
}
