import { AgentError, type PolicyReason } from '../errors.js';
import { formatProblems, type DocumentProblem } from './document-problem.js';

export interface PolicyErrorData extends Record<string, unknown> {
  file: string;
  problems: DocumentProblem[];
}

/** A `.agent-policy.yaml` that cannot be used; `data.problems` lists every problem found. */
export class PolicyError extends AgentError<PolicyReason> {
  declare readonly data: PolicyErrorData;

  constructor(reason: PolicyReason, message: string, data: PolicyErrorData, options?: { cause?: unknown }) {
    super(reason, message, data, options);
  }

  /** `file:line:col: message` lines, for the "action required" comment and `policy check`. */
  format(): string {
    return formatProblems(this.data.problems);
  }
}
