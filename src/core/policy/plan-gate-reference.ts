/** The example of docs/policy-reference.md's plan gate section (a unit test parses it). */
export const PLAN_GATE_EXAMPLE = `version: 1
agent:
  requirePlanApproval: true
  maxChangedFiles: 20
`;

/** The section of docs/policy-reference.md about `agent.requirePlanApproval` (src/core/runs/plan-gate.ts). */
export function planGateReference(): string[] {
  return [
    '## A plan to approve (`agent.requirePlanApproval`)',
    '',
    'With `requirePlanApproval: true` every run stops after planning, before any file is changed:',
    'its status is NEEDS_APPROVAL with reason `PLAN_APPROVAL` (the CLI exits 3), and the attempt',
    'writes `plan.json`: the targets chosen and why, the segments (one per recipe step, or the',
    "model's change), the files the change is expected to touch, and the estimated spend (none for",
    "recipes; for a model, the attempt's call limit and `agent.budgets.maxCostUsd`). The progress",
    'comment shows the plan. `/agent plan` on an issue asks the same of that one run when the policy',
    'does not. An analysis (a plan that changes nothing) never stops there.',
    '',
    '- `/agent approve` approves the plan by the digest of the stored `plan.json` (the gate',
    '  `plan-<digest>`); the next attempt makes the change. In the CLI, the same command with',
    '  `--approve` does.',
    "- The change is held to the plan's files: a change to any other file (a model's plan revision",
    '  included) stops in NEEDS_APPROVAL again, naming the file (`OUTSIDE_PLAN`); `/agent approve`',
    '  approves that change and the run stays held to the plan. The publisher checks the same',
    '  against the approval, and publishes nothing of a run that needs a plan approval and has none.',
    '- A retry, a revision or a rebuild on a moved base plans anew and stops at the plan gate again.',
    '',
    '```yaml',
    ...PLAN_GATE_EXAMPLE.trimEnd().split('\n'),
    '```',
    '',
  ];
}
