import { MAX_TASK_STEPS } from '../task/task-contract.js';

/**
 * The ten canonical phases as contracts. The runtime enforces them: a tool
 * outside `allowedTools` is refused and ledgered, whatever the engine asks for.
 */
export const PHASE_NAMES = [
  'intake',
  'discovery',
  'planning',
  'baseline',
  'mechanical_change',
  'local_repair',
  'regression_verification',
  'diff_boundary_review',
  'judge',
  'pr_preparation',
] as const;
export type PhaseName = (typeof PHASE_NAMES)[number];

export const TOOL_NAMES = [
  'task_parse',
  'repo_map_query',
  'repo_map_find_definition',
  'repo_map_find_importers',
  'repo_map_find_tests',
  'repo_map_owners',
  'repo_map_explain_path',
  'repo_map_find_files',
  'code_search',
  'file_read',
  'file_edit',
  'file_create',
  'file_write',
  'file_delete',
  'recipe_apply',
  'model_call',
  'verify_parse',
  'verify_commands',
  'ci_read',
  'git_status',
  'git_diff',
  'git_log',
  'git_blame',
  'git_branch',
  'git_stage',
  'git_commit',
  'candidate_write',
  'plan_revise',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export interface PhaseBudgets {
  /** Steps of the phase whatever the plan; see `phaseStepBudget` for the ones that grow with it. */
  maxSteps: number;
  /** Extra steps per planned segment, for phases that use a tool once per segment. */
  stepsPerSegment?: number;
  maxTokens: number;
  maxWallClockMs: number;
}

export interface PhaseContract {
  name: PhaseName;
  title: string;
  goal: string;
  /**
   * What a model working in this phase is told to do and when to stop, in its terms (files it
   * may change, tools, a final answer); the phases a model works in have one.
   */
  modelGoal?: string;
  allowedTools: readonly ToolName[];
  /** Everything not allowed is forbidden; listed explicitly for the report and the prompt. */
  forbiddenTools: readonly ToolName[];
  /** Which files the phase may write: none, or the selected targets within the task scope. */
  allowedFiles: 'none' | 'targets';
  outputs: readonly string[];
  stopConditions: readonly string[];
  budgets: PhaseBudgets;
}

/**
 * The step budget of a phase for a plan of `segments` segments: `maxSteps + stepsPerSegment ×
 * segments`, the segments counted up to the task contract's limit on steps, so a grouped bump of
 * ten dependencies gets the steps it needs and no input makes the budget unbounded.
 */
export function phaseStepBudget(contract: Pick<PhaseContract, 'budgets'>, segments: number): number {
  const counted = Math.min(Math.max(0, Math.floor(Number.isFinite(segments) ? segments : 0)), MAX_TASK_STEPS);
  return contract.budgets.maxSteps + (contract.budgets.stepsPerSegment ?? 0) * counted;
}

/** The navigator's queries; `repo_map_query` is building and reading the map itself. */
const NAVIGATION_TOOLS: readonly ToolName[] = [
  'repo_map_find_definition',
  'repo_map_find_importers',
  'repo_map_find_tests',
  'repo_map_owners',
  'repo_map_explain_path',
  'repo_map_find_files',
];
const READ_TOOLS: readonly ToolName[] = ['repo_map_query', ...NAVIGATION_TOOLS, 'code_search', 'file_read', 'git_status', 'git_diff', 'git_log', 'git_blame'];
const MINUTE = 60_000;

function contract(c: Omit<PhaseContract, 'forbiddenTools'>): PhaseContract {
  return { ...c, forbiddenTools: TOOL_NAMES.filter((t) => !c.allowedTools.includes(t)) };
}

export const PHASE_CONTRACTS: Readonly<Record<PhaseName, PhaseContract>> = {
  intake: contract({
    name: 'intake',
    title: 'Intake',
    goal: 'Turn the request snapshot into a task contract; decide the mode.',
    allowedTools: ['task_parse'],
    allowedFiles: 'none',
    outputs: ['task_contract'],
    stopConditions: ['task parsed', 'task block invalid'],
    budgets: { maxSteps: 5, maxTokens: 0, maxWallClockMs: MINUTE },
  }),
  discovery: contract({
    name: 'discovery',
    title: 'Discovery',
    goal: 'Find the target surface and its risk before editing anything.',
    allowedTools: [...READ_TOOLS, 'model_call'],
    allowedFiles: 'none',
    outputs: ['repo_map', 'target_selection', 'risk_assessment'],
    stopConditions: ['target surface found', 'no target found', 'ambiguity requires approval'],
    budgets: { maxSteps: 30, maxTokens: 50_000, maxWallClockMs: 10 * MINUTE },
  }),
  planning: contract({
    name: 'planning',
    title: 'Planning',
    goal: 'Split the change into bounded segments and choose the engine for each.',
    allowedTools: [...READ_TOOLS, 'model_call'],
    allowedFiles: 'none',
    outputs: ['plan'],
    stopConditions: ['plan made', 'nothing to do'],
    budgets: { maxSteps: 10, maxTokens: 30_000, maxWallClockMs: 5 * MINUTE },
  }),
  baseline: contract({
    name: 'baseline',
    title: 'Baseline',
    goal: 'Record the state of the base commit so pre-existing failures are not blamed on the change.',
    allowedTools: ['ci_read', 'verify_parse', 'file_read'],
    allowedFiles: 'none',
    outputs: ['baseline'],
    stopConditions: ['baseline recorded'],
    budgets: { maxSteps: 5, maxTokens: 0, maxWallClockMs: 5 * MINUTE },
  }),
  mechanical_change: contract({
    name: 'mechanical_change',
    title: 'Change',
    goal: 'Make the main change, one segment at a time, deterministic where the rule is clear.',
    modelGoal:
      'Make the change the task asks for, editing only the files you may change (plan_revise adds a file the change needs, with the reason). ' +
      'Read and search what you need first; for a bug, fix the cause and add or update a test that shows it. ' +
      'Stop when the change is made: reply without a tool call, saying what you changed, why, and what you did not check. ' +
      'Stop as well, saying what is missing, as soon as you see it cannot be done within these files and budgets.',
    allowedTools: [...READ_TOOLS, 'file_edit', 'file_create', 'file_write', 'file_delete', 'recipe_apply', 'model_call', 'plan_revise'],
    allowedFiles: 'targets',
    outputs: ['patch_stack'],
    stopConditions: ['all segments applied', 'budget exhausted'],
    budgets: { maxSteps: 60, stepsPerSegment: 1, maxTokens: 150_000, maxWallClockMs: 20 * MINUTE },
  }),
  local_repair: contract({
    name: 'local_repair',
    title: 'Repair',
    goal: "Repair what the change broke (files that no longer parse, names left unbound, the project's own checks where agent.verify runs them), cluster by cluster.",
    modelGoal:
      'Fix the problems the context lists (files that no longer parse, names left unbound, failing project checks) within the files you may change; ' +
      'do not redo or widen the change. Stop when they are fixed, replying without a tool call with what you changed, ' +
      'or as soon as you see they cannot be fixed here, saying why.',
    allowedTools: [...READ_TOOLS, 'file_edit', 'file_create', 'file_write', 'verify_parse', 'verify_commands', 'model_call'],
    allowedFiles: 'targets',
    outputs: ['repair_segments'],
    stopConditions: ['every changed file parses', 'repair budget exhausted'],
    // Model rounds, plus the project's checks before and after each (agent.verify.budgetSeconds each, at most 2 hours).
    budgets: { maxSteps: 30, maxTokens: 80_000, maxWallClockMs: 10 * MINUTE + 3 * 120 * MINUTE },
  }),
  regression_verification: contract({
    name: 'regression_verification',
    title: 'Verification',
    goal: "Prove that nothing in the change is broken or cheats: static checks, and the project's own commands where agent.verify runs them.",
    allowedTools: ['file_read', 'verify_parse', 'verify_commands', 'git_diff', 'git_status'],
    allowedFiles: 'none',
    outputs: ['verification_report'],
    stopConditions: ['verification done'],
    // The static checks, plus the longest command budget the policy allows (agent.verify.budgetSeconds, at most 2 hours).
    budgets: { maxSteps: 10, maxTokens: 0, maxWallClockMs: 125 * MINUTE },
  }),
  diff_boundary_review: contract({
    name: 'diff_boundary_review',
    title: 'Scope review',
    goal: 'Check the whole diff against scope, policy and budgets.',
    allowedTools: ['git_status', 'git_diff', 'file_read'],
    allowedFiles: 'none',
    outputs: ['scope_verdict', 'risk'],
    stopConditions: ['verdict given'],
    budgets: { maxSteps: 5, maxTokens: 0, maxWallClockMs: 2 * MINUTE },
  }),
  judge: contract({
    name: 'judge',
    title: 'Judge',
    goal: 'Decide whether the objective is met without overreach and the evidence suffices.',
    allowedTools: ['git_diff', 'file_read', 'model_call'],
    allowedFiles: 'none',
    outputs: ['judge_verdict'],
    stopConditions: ['verdict given'],
    budgets: { maxSteps: 5, stepsPerSegment: 1, maxTokens: 20_000, maxWallClockMs: 2 * MINUTE },
  }),
  pr_preparation: contract({
    name: 'pr_preparation',
    title: 'PR preparation',
    goal: 'Commit on the agent branch and write the PR candidate with its evidence.',
    allowedTools: ['git_status', 'git_diff', 'git_branch', 'git_stage', 'git_commit', 'candidate_write', 'file_read'],
    allowedFiles: 'none',
    outputs: ['pr_candidate'],
    stopConditions: ['candidate written', 'commit refused'],
    budgets: { maxSteps: 10, maxTokens: 0, maxWallClockMs: 2 * MINUTE },
  }),
};
