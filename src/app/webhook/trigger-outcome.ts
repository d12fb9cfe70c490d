/** What the webhook did with one event; logged by the app, asserted by tests. */
export type TriggerOutcome =
  | { kind: 'ignored'; why: string }
  | { kind: 'replied'; why: string }
  | { kind: 'started'; runId: string; attempt: number }
  /** The run waits in its repository's queue, `place` in line (docs/architecture.md, "The run queue"). */
  | { kind: 'queued'; runId: string; place: number }
  | { kind: 'duplicate'; runId: string }
  | { kind: 'cancelled'; runId: string }
  | { kind: 'policy-invalid' }
  | { kind: 'campaign'; campaignId: string; execution: 'started' | 'running' };
