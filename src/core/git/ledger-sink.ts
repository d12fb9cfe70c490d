/** One audit event of a git-boundary transition. Payloads hold SHAs, paths and reasons, never file contents. */
export interface LedgerEvent {
  actor: string;
  phase?: string;
  type: string;
  payload: Record<string, unknown>;
  evidenceRefs?: string[];
}

/** Where transitions are recorded (the phases' ledger writes them to `attempts/<n>/ledger/`). */
export interface LedgerSink {
  append(event: LedgerEvent): Promise<void>;
}

/** The actor name of every event this module appends. */
export const GIT_ACTOR = 'git-boundary';
