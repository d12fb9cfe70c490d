import { describeExhaustion } from '../budget/budget.js';
import type { LedgerEntry } from '../phases/ledger.js';
import type { PhaseName } from '../phases/phase-contracts.js';
import { PHASE_CONTRACTS, PHASE_NAMES } from '../phases/phase-contracts.js';
import type { Checkpoint } from '../phases/orchestrator.js';
import type { RunReportInput } from '../phases/run-report-schema.js';
import { recipeFor } from '../engines/recipe/registry.js';
import { describeSteps, shortModuleName } from '../publish/pr-text.js';
import { moduleForPath } from '../repomap/detect-modules.js';
import type { RecipeStep } from '../task/recipe-steps.js';
import type { TaskContract } from '../task/task-contract.js';
import { lastExhaustion, modelUsage, runLimits } from './model-budget.js';
import { changeOf } from './phases/change-phase.js';
import { discoveryOf } from './phases/discovery-phase.js';
import { understoodOf } from './inferred-steps.js';
import { planOf } from './phases/planning-phase.js';
import { reviewOf } from './phases/review-phase.js';
import { verificationOf } from './phases/verification-phase.js';
import { viewsFor, type PipelineEnv } from './pipeline-env.js';
import { planRevisions } from './plan-revision.js';
import { modelAccountOf, notesOf } from './report-model-account.js';
import { strategyOf } from './report-strategy.js';
import { testCommandsOf } from './report-test-commands.js';
import type { RepoMap } from '../repomap/repo-map-schema.js';
import type { TargetWarning } from '../targets/target-selection-schema.js';
import { verificationWarnings } from './verification-warnings.js';

/**
 * Target selection's notices about its own work, left out of the body (target-selection.json keeps
 * them): they say how candidates were found, not what a reviewer of the change must weigh. A
 * lockfile to refresh has its own section. Any other warning is shown.
 */
const SELECTION_NOTICES: ReadonlySet<string> = new Set([
  'SYMBOL_RESOLUTION_PARTIAL',
  'SEARCH_TRUNCATED',
  'TASK_WORDS_TOO_COMMON',
  'SELECTION_CAPPED',
  'LOCKFILE_NEEDS_REFRESH',
] satisfies TargetWarning['code'][]);

/** The outputs of the phases that ran, parsed. */
interface Outputs {
  discovery?: ReturnType<typeof discoveryOf>;
  plan?: ReturnType<typeof planOf>;
  change?: ReturnType<typeof changeOf>;
  verification?: ReturnType<typeof verificationOf>;
  review?: ReturnType<typeof reviewOf>;
}

function parsedOutputs(outputs: Readonly<Partial<Record<PhaseName, unknown>>>): Outputs {
  const o = outputs as Record<string, unknown>;
  return {
    discovery: o.discovery ? discoveryOf(o) : undefined,
    plan: o.planning ? planOf(o) : undefined,
    change: o.mechanical_change ? changeOf(o) : undefined,
    verification: o.regression_verification ? verificationOf(o) : undefined,
    review: o.diff_boundary_review ? reviewOf(o) : undefined,
  };
}

/**
 * Gather the run report from the phase outputs: what a reviewer reads in the PR body. Only
 * facts the phases recorded; nothing is claimed that did not happen.
 */
export function buildRunReport(
  env: PipelineEnv,
  task: TaskContract,
  outputs: Readonly<Partial<Record<PhaseName, unknown>>>,
  checkpoints: readonly Checkpoint[],
  state: {
    status: string;
    headCommitSha?: string;
    artifacts: { name: string; url: string }[];
    current?: PhaseName;
    currentSteps?: number;
    /** The attempt's ledger: model usage per phase and the budget that stopped the run come from it. */
    ledger?: readonly LedgerEntry[];
    /** The repository map discovery built: the test commands of the modules the change touched come from it. */
    map?: RepoMap;
  },
): RunReportInput {
  const views = viewsFor(env, task);
  const out = parsedOutputs(outputs);
  const { discovery, change, review } = out;
  const targets = targetsOf(out);
  const { lockfiles, dependencyUpdates, moves } = whatTheChangeMoved(change, review);
  return {
    schemaVersion: 1,
    runId: env.request.runId,
    attempt: env.attempt,
    status: state.status,
    title: (env.request.issue?.title ?? env.request.task?.title ?? task.title).trim() || describeSteps(task.steps),
    objective: task.objective,
    mode: task.mode,
    repository: `${env.owner}/${env.repo}`,
    baseRef: env.baseRef,
    baseCommitSha: review?.diffSummary.baseCommitSha ?? checkpoints[0]?.baseCommitSha ?? 'unknown',
    headCommitSha: state.headCommitSha,
    agentBranch: env.agentBranch,
    createdAt: env.createdAt,
    scope: { paths: task.paths ?? [], untouched: untouched(env, lockfiles.length) },
    strategy: strategyOf(out.plan, out.change, state.ledger ?? []),
    targets: targets.targets,
    verification: verificationSection(env, out, state.status),
    lockfiles,
    moves,
    ...understoodOf(outputs),
    dependencyUpdates,
    risk: riskOf(review),
    policyVerdicts: policyVerdicts(out, views.limits),
    antiCheat: (out.verification?.cheats ?? []).map((c) => ({
      rule: c.rule,
      path: c.path,
      line: c.line,
      snippet: c.snippet,
      severity: c.severity === 'HIGH' ? 'HIGH' : 'MEDIUM',
    })),
    budget: budgetSection(env, task, out, checkpoints, state),
    phases: phasesOf(checkpoints, state.current),
    modules: targets.modules,
    artifacts: state.artifacts,
    notes: notesOf(change),
    modelAccount: modelAccountOf(change),
    testCommands: review
      ? testCommandsOf(
          state.map,
          review.diffSummary.files.map((f) => f.path),
          views.rules.classify,
        )
      : [],
    planRevisions: planRevisions(state.ledger ?? []).map((r) => ({ reason: r.reason, added: r.added, dropped: r.dropped })),
    warnings: [
      ...verificationWarnings(out.verification?.report),
      ...incompleteWarnings(change),
      ...budgetWarning(out, state.ledger),
      ...(discovery?.warnings ?? []).filter((w) => !SELECTION_NOTICES.has(w.code)).map((w) => `${w.code}: ${w.message}`),
    ],
  };
}

/**
 * The lockfiles to refresh, the versions and the files moved, from what the change edited (target
 * selection's LOCKFILE_NEEDS_REFRESH names every lockfile in scope, changed or not): none when
 * the change in the end edits no file (a step undone later, a run that changed nothing).
 */
function whatTheChangeMoved(change: Outputs['change'], review: Outputs['review']): Required<Pick<RunReportInput, 'lockfiles' | 'dependencyUpdates' | 'moves'>> {
  if (review?.diffSummary.filesChanged === 0) return { lockfiles: [], dependencyUpdates: [], moves: [] };
  return { lockfiles: lockfilesOf(change), dependencyUpdates: dependencyUpdatesOf(change), moves: (change?.segments ?? []).flatMap((s) => s.moves ?? []) };
}

/** One row per package and version move, across the steps. */
function dependencyUpdatesOf(change: Outputs['change']): NonNullable<RunReportInput['dependencyUpdates']> {
  const rows = new Map((change?.segments ?? []).flatMap((s) => s.updates ?? []).map((u) => [`${u.package}\n${u.from}\n${u.to}`, u]));
  return [...rows.values()];
}

/** One entry per lockfile: two steps touching one manifest ask for the same refresh. */
function lockfilesOf(change: Outputs['change']): NonNullable<RunReportInput['lockfiles']> {
  const unique = new Map((change?.segments ?? []).flatMap((s) => s.lockfilesToRefresh).map((l) => [`${l.lockfile}\n${l.command}`, l]));
  return [...unique.values()].map((l) => ({ path: l.lockfile, command: l.command, why: 'lockfiles are never edited by draftsman' }));
}

function riskOf(review: Outputs['review']): RunReportInput['risk'] {
  return review
    ? { level: review.risk.riskLevel, score: review.risk.riskScore, reasons: review.risk.reasons, requiredGate: review.risk.requiredGate }
    : { level: 'LOW', score: 0, reasons: ['not assessed: the run stopped before the diff review'] };
}

/** Every phase, done (checkpointed), running or pending. */
function phasesOf(checkpoints: readonly Checkpoint[], current: PhaseName | undefined): RunReportInput['phases'] {
  const done = new Set(checkpoints.map((c) => c.phase));
  return PHASE_NAMES.map((name) => ({ name: PHASE_CONTRACTS[name].title, state: done.has(name) ? 'done' : name === current ? 'running' : 'pending' }));
}

/** Per changed file: which segments changed it (with their edit counts) and the kinds of edit. */
function changesByFile(plan: Outputs['plan'], change: Outputs['change']): { changedBy: Map<string, string[]>; edits: Map<string, Set<string>> } {
  const changedBy = new Map<string, string[]>();
  const edits = new Map<string, Set<string>>();
  const planned = new Map((plan?.segments ?? []).map((s) => [s.id, s]));
  for (const segment of change?.segments ?? []) {
    for (const f of segment.changedFiles) {
      changedBy.set(f.path, [...(changedBy.get(f.path) ?? []), `${segment.id}: ${f.edits} edit(s)`]);
      edits.set(f.path, (edits.get(f.path) ?? new Set()).add(editKind(planned.get(segment.id))));
    }
  }
  return { changedBy, edits };
}

/** Files per top-level module (the detected module's short name, else the first path segment), by name. */
function moduleCounts(discovery: Outputs['discovery'], paths: readonly string[]): RunReportInput['modules'] {
  const moduleFiles = new Map<string, number>();
  for (const path of paths) {
    const owner = discovery ? moduleForPath(discovery.modules, path) : undefined;
    const name = (owner && shortModuleName(owner)) ?? (path.includes('/') ? path.slice(0, path.indexOf('/')) : '.');
    moduleFiles.set(name, (moduleFiles.get(name) ?? 0) + 1);
  }
  return [...moduleFiles.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, files]) => ({ name, files }));
}

/** The changed files (after the review) or the selected targets, with why each is there, and files per top-level module. */
function targetsOf({ discovery, plan, change, review }: Outputs): Pick<RunReportInput, 'targets' | 'modules'> {
  const diffFiles = new Map((review?.diffSummary.files ?? []).map((f) => [f.path, f]));
  const { changedBy, edits } = changesByFile(plan, change);
  const discovered = new Map((discovery?.targets ?? []).map((t) => [t.path, t.reasons]));
  const targetPaths = review ? [...diffFiles.keys()] : (discovery?.targets ?? []).map((t) => t.path).slice(0, 50);
  return {
    targets: targetPaths.map((path) => {
      const f = diffFiles.get(path);
      const edit = edits.has(path) ? [...edits.get(path)!].sort().join(' and ') : undefined;
      return {
        path,
        change: f?.kind,
        insertions: f?.insertions,
        deletions: f?.deletions,
        ...(edit ? { edit } : {}),
        reasons: [...(changedBy.get(path) ?? []), ...(discovered.get(path) ?? []).slice(0, 3)],
      };
    }),
    modules: moduleCounts(discovery, targetPaths),
  };
}

function verificationSection(env: PipelineEnv, { verification, review }: Outputs, status: string): RunReportInput['verification'] {
  const staticChecks = verification?.report.checks.map((c) => ({ name: c.name, status: c.status, detail: c.detail })) ?? [];
  const scopeCheck = review
    ? [
        {
          name: 'Scope guard (paths, policy, budgets)',
          status: review.scope.status === 'PASS' ? ('PASSED' as const) : ('FAILED' as const),
          detail: scopeDetail(review.scope),
        },
      ]
    : [];
  return {
    checks: [...staticChecks, ...scopeCheck],
    secretFindings: (verification?.secretFindings ?? []).map((f) => ({ rule: f.rule, path: f.path, line: f.line })),
    notRun: verification?.report.notRun ?? [{ name: 'required verification', why: `the run stopped before verification (${status})` }],
    commands: verification?.report.commands ?? [],
    ...(verification?.report.commandsRanIn ? { commandsRanIn: verification.report.commandsRanIn } : {}),
    ciCommands: env.policy.agent.build.commands,
    verifier: env.policy.agent.build.defaultVerifier,
  };
}

type Limits = ReturnType<typeof viewsFor>['limits'];

function policyVerdicts({ review }: Outputs, limits: Limits): RunReportInput['policyVerdicts'] {
  if (!review) return [];
  return [
    {
      rule: 'forbidden paths and workflows',
      verdict: review.scope.violations.some((v) => v.rule === 'FORBIDDEN_PATH' || v.rule === 'WORKFLOW_CHANGE_NOT_PERMITTED') ? 'FAIL' : 'PASS',
    },
    { rule: `file budget (${limits.maxFiles})`, verdict: review.diffSummary.filesChanged <= limits.maxFiles ? 'PASS' : 'FAIL' },
    { rule: `line budget (${limits.maxLines})`, verdict: review.diffSummary.insertions + review.diffSummary.deletions <= limits.maxLines ? 'PASS' : 'FAIL' },
    ...(review.scope.violations.length > 0 && review.scope.status === 'PASS'
      ? [{ rule: `approval gate ${review.scope.gateId}`, verdict: 'APPROVED' as const }]
      : []),
  ];
}

/**
 * Budget used: phase steps of every checkpointed phase (one checkpoint per phase: the last
 * counts after a resume) plus the phase still running; model rows only when a model was asked.
 */
function budgetSection(
  env: PipelineEnv,
  task: TaskContract,
  { plan, change, review }: Outputs,
  checkpoints: readonly Checkpoint[],
  state: { current?: PhaseName; currentSteps?: number; ledger?: readonly LedgerEntry[] },
): RunReportInput['budget'] {
  const limits = viewsFor(env, task).limits;
  const perPhase = new Map(checkpoints.map((c) => [c.phase, c.stepsUsed]));
  if (state.current && state.currentSteps !== undefined && !perPhase.has(state.current)) perPhase.set(state.current, state.currentSteps);
  const modelRan = plan?.strategy === 'llm' || (change?.segments ?? []).some((s) => s.engine === 'llm' || s.model !== undefined);
  const elapsed = new Map(
    checkpoints.flatMap((c) => (c.startedAt ? [[c.phase, Math.max(0, Date.parse(c.completedAt) - Date.parse(c.startedAt))] as const] : [])),
  );
  return {
    steps: { used: [...perPhase.values()].reduce((n, used) => n + used, 0) },
    ...(modelRan ? (state.ledger ? modelRows(env, task, state.ledger, elapsed) : segmentRows(change, limits)) : {}),
    ...(elapsed.size > 0 ? { wallClockMs: [...elapsed.values()].reduce((n, ms) => n + ms, 0) } : {}),
    // Before the diff review (a stop in the change phase) the files come from what the segments wrote.
    files: {
      used: review?.diffSummary.filesChanged ?? new Set((change?.segments ?? []).flatMap((s) => s.changedFiles.map((f) => f.path))).size,
      limit: limits.maxFiles,
    },
    ...(review ? { lines: { used: review.diffSummary.insertions + review.diffSummary.deletions, limit: limits.maxLines } } : {}),
  };
}

/** The model rows from the ledger: calls, tool calls, tokens each way and cost against the run's limits, and per phase. */
function modelRows(
  env: PipelineEnv,
  task: TaskContract,
  ledger: readonly LedgerEntry[],
  elapsed: ReadonlyMap<PhaseName, number>,
): Partial<RunReportInput['budget']> {
  const { total, byPhase } = modelUsage(ledger);
  const limits = runLimits(env, task);
  const exhausted = lastExhaustion(ledger);
  return {
    modelCalls: { used: total.modelCalls, limit: limits.modelCalls },
    toolCalls: { used: total.toolCalls, limit: limits.toolCalls },
    tokensIn: { used: total.tokensIn, limit: limits.tokensIn },
    tokensOut: { used: total.tokensOut, limit: limits.tokensOut },
    cost: { used: total.costMicroUsd, limit: limits.costMicroUsd },
    phases: PHASE_NAMES.flatMap((phase) => {
      const u = byPhase.get(phase);
      return u ? [{ phase: PHASE_CONTRACTS[phase].title, ...u, wallClockMs: elapsed.get(phase) }] : [];
    }),
    ...(exhausted ? { exhausted } : {}),
  };
}

/** Without a ledger: what the change phase's segments recorded. */
function segmentRows(change: Outputs['change'], limits: Limits): Partial<RunReportInput['budget']> {
  return {
    modelCalls: { used: change?.segments.reduce((n, s) => n + (s.model?.calls ?? 0), 0) ?? 0, limit: limits.maxModelCalls },
    tokens: { used: change?.segments.reduce((n, s) => n + (s.model?.tokens ?? 0), 0) ?? 0 },
  };
}

/**
 * The partial report's first line when a budget stopped the run: which one, its limit and use,
 * and what was done before the stop (the checkpoint keeps it for a retry).
 */
function budgetWarning({ change }: Outputs, ledger: readonly LedgerEntry[] | undefined): string[] {
  const exhausted = ledger ? lastExhaustion(ledger) : undefined;
  if (!exhausted) return scopeStop(ledger);
  const segments = change?.segments ?? [];
  const finished = segments.filter((s) => s.model?.status !== 'BUDGET_EXCEEDED').length;
  const files = [...new Set(segments.flatMap((s) => s.changedFiles.map((f) => f.path)))].sort();
  const where = `${PHASE_CONTRACTS[exhausted.phase].title}${exhausted.segment ? `, ${exhausted.segment}` : ''}`;
  const done = `${finished} ${finished === 1 ? 'segment' : 'segments'} completed, ${files.length} ${files.length === 1 ? 'file' : 'files'} changed${files.length > 0 && files.length <= 5 ? ` (${files.join(', ')})` : ''}`;
  return [
    `Budget exhausted in ${where}: ${describeExhaustion(exhausted)}. Done before the stop: ${done}. The checkpoint is kept: raise the limit or narrow the task, then retry.`,
  ];
}

/** A segment that left its change incomplete says so first: the change does not build as it stands. */
function incompleteWarnings(change: Outputs['change']): string[] {
  return (change?.segments ?? []).flatMap((s) => (s.incomplete ?? []).map((why) => `Incomplete change: ${why}.`));
}

/**
 * Why the scope guard stopped the run, in its own words: a budget it went over names the limit,
 * what the change needed and the key that raises it.
 */
function scopeStop(ledger: readonly LedgerEntry[] | undefined): string[] {
  const verdict = [...(ledger ?? [])].reverse().find((e) => e.type === 'SCOPE_VERDICT');
  const payload = verdict?.payload as { status?: string; violations?: { message?: string }[] } | undefined;
  if (payload?.status !== 'BUDGET_EXCEEDED') return [];
  return (payload.violations ?? []).flatMap((v) => (v.message ? [`Stopped by the scope guard: ${v.message}.`] : []));
}

/** What the run left alone by design: lockfiles only when some are listed, and the policy's forbidden paths. */
function untouched(env: PipelineEnv, lockfiles: number): string[] {
  const out: string[] = [];
  if (lockfiles > 0) out.push(`${lockfiles} ${lockfiles === 1 ? 'lockfile' : 'lockfiles'} (listed under Lockfiles to refresh, with the command)`);
  const forbidden = [...new Set(['.github/workflows/**', ...env.policy.agent.forbiddenPaths])];
  // Code spans: a glob's `**` must not read as emphasis.
  out.push(`paths the policy forbids: ${forbidden.map((p) => `\`${p}\``).join(', ')}`);
  return out;
}

/** The kind of edit a segment makes, for the risk section (a recipe's edits weigh less than a model's). */
function editKind(segment: { step?: RecipeStep } | undefined): string {
  return segment?.step ? recipeFor(segment.step).wording.changeKind : 'model-written change';
}

const VIOLATION_WORDS: Record<string, string> = {
  OUT_OF_SCOPE: 'outside the task scope',
  REQUIRES_APPROVAL: 'approval required by policy',
  FORBIDDEN_PATH: 'forbidden by policy',
  WORKFLOW_CHANGE_NOT_PERMITTED: 'workflow, not editable',
  LOCKFILE_NOT_ALLOWED: 'lockfile, not editable',
  GENERATED_NOT_ALLOWED: 'generated, not editable',
};

/**
 * The scope guard's verdict in one cell: violations grouped by rule with a count and at most a
 * few paths; a HIGH risk points to the Risk section instead of repeating its reasons.
 */
function scopeDetail(scope: ReturnType<typeof reviewOf>['scope']): string {
  if (scope.violations.length === 0) return 'every changed file is in scope';
  const parts: string[] = [];
  const byRule = new Map<string, typeof scope.violations>();
  for (const v of scope.violations) byRule.set(v.rule, [...(byRule.get(v.rule) ?? []), v]);
  for (const [rule, list] of byRule) {
    if (rule === 'HIGH_RISK') parts.push('risk is HIGH (see Risk)');
    else if (VIOLATION_WORDS[rule]) {
      const paths = list.flatMap((v) => (v.path ? [v.path] : []));
      parts.push(`${VIOLATION_WORDS[rule]}: ${list.length} ${list.length === 1 ? 'file' : 'files'}${paths.length <= 3 ? ` (${paths.join(', ')})` : ''}`);
    } else parts.push(...list.map((v) => v.message));
  }
  const approved = scope.status === 'PASS' ? `approved${scope.gateId ? ` (${scope.gateId})` : ''}: ` : '';
  return `${approved}${parts.join('; ')}`;
}
