import { z } from 'zod';
import { readArtifactIfPresent } from '../artifacts/artifact-io.js';
import { shortModuleName } from '../publish/pr-text.js';
import type { PhaseName } from '../phases/phase-contracts.js';
import { GITHUB_COMMENT_LIMIT, renderAnalysisReport, type AnalysisReportInput } from '../phases/analysis-report.js';
import { changeOriginOf, changeRisk } from '../risk/change-risk.js';
import { moduleForPath } from '../repomap/detect-modules.js';
import { RepoMap } from '../repomap/repo-map-schema.js';
import type { TARGET_WARNING_CODES } from '../targets/target-selection-schema.js';
import { RECIPE_NAMES, RecipeStep } from '../task/recipe-steps.js';
import type { TaskBlock, TaskContract } from '../task/task-contract.js';
import { discoveryOf, reviewersFor, type DiscoveryOutput } from './phases/discovery-phase.js';
import { stepInWords } from './report-strategy.js';
import { planOf } from './phases/planning-phase.js';
import { viewsFor, type PipelineEnv } from './pipeline-env.js';
import { suggestRecipeSteps } from './suggest-recipe.js';
import type { InferredSteps } from './inferred-steps.js';

/** Below this rank a target is a guess worth confirming. */
const LOW_CONFIDENCE_RANK = 0.5;
/** Only the CODEOWNERS rules are read back from the stored repository map. */
const Ownership = z.object({ ownership: RepoMap.shape.ownership });

/**
 * Gather the analysis report of an analysis run from what its phases recorded: the task, the
 * target selection (with its reasons, not recomputed), the repository map's CODEOWNERS rules and
 * the risk scoring the review phase would apply to those files. Nothing here is a change: the
 * plan and the risk are what a draft PR would do.
 */
export async function buildAnalysisReport(
  env: PipelineEnv,
  task: TaskContract,
  outputs: Readonly<Partial<Record<PhaseName, unknown>>>,
  state: { status: string; baseCommitSha?: string; artifacts: { name: string; url: string }[] },
): Promise<AnalysisReportInput> {
  const o = outputs as Record<string, unknown>;
  const discovery = o.discovery ? discoveryOf(o) : undefined;
  const plan = o.planning ? planOf(o) : undefined;
  const ownership = discovery ? await readArtifactIfPresent(env.store, env.keys.attempt(env.attempt).repoMap, Ownership) : undefined;
  const ownersOf = (paths: readonly string[]) => (ownership ? reviewersFor(ownership, paths) : []);
  const targets = (discovery?.targets ?? []).map((t) => ({
    path: t.path,
    rank: t.rank,
    classification: t.classification,
    editable: t.allowedToEdit,
    module: moduleNameOf(discovery, t.path),
    owners: ownersOf([t.path]),
    reasons: t.reasons,
  }));
  const steps = task.steps.map((step) => ({ text: stepInWords(step), files: filesFor(step, targets) }));
  // The files a draft PR would change: a recipe's own matches, or every editable target for the model.
  const wouldChange =
    task.steps.length > 0 ? [...new Set(steps.flatMap((s) => s.files))].sort() : env.model ? targets.filter((t) => t.editable).map((t) => t.path) : [];
  const inferred = discovery?.inferred;
  const suggested = task.steps.length > 0 ? [] : inferred ? offeredSteps(inferred) : suggestRecipeSteps(task);
  const views = viewsFor(env, task);
  const risk =
    wouldChange.length > 0
      ? changeRisk(
          wouldChange.map((path) => ({ path, kind: 'MODIFIED' })),
          views.rules,
          { origin: changeOriginOf(task), minRisk: env.policy.agent.approval.minRisk },
        )
      : undefined;
  return {
    schemaVersion: 1,
    runId: env.request.runId,
    attempt: env.attempt,
    status: state.status,
    title: (env.request.issue?.title ?? env.request.task?.title ?? task.title).trim(),
    objective: task.objective,
    repository: `${env.owner}/${env.repo}`,
    baseRef: env.baseRef,
    baseCommitSha: state.baseCommitSha ?? 'unknown',
    plan: { summary: planSummary(task, env, wouldChange.length, plan?.reason), steps },
    targets,
    modules: modulesOf(targets),
    ...(risk
      ? { risk: { level: risk.riskLevel, score: risk.riskScore, reasons: risk.reasons, requiredGate: risk.requiredGate, files: wouldChange.length } }
      : {}),
    questions: [...understoodLines(inferred), ...openQuestions(task, env, discovery, steps, risk?.requiredGate, suggested)],
    ...offeredBlock(task, suggested),
    artifacts: state.artifacts,
  };
}

function moduleNameOf(discovery: DiscoveryOutput | undefined, path: string): string {
  const owner = discovery ? moduleForPath(discovery.modules, path) : undefined;
  return (owner && shortModuleName(owner)) ?? (path.includes('/') ? path.slice(0, path.indexOf('/')) : '.');
}

/** The targets the target selection said this step's recipe can change (its reason names the recipe). */
function filesFor(step: RecipeStep, targets: readonly { path: string; editable: boolean; reasons: string[] }[]): string[] {
  const marker = `${step.recipe} can change this file`;
  return targets.filter((t) => t.editable && t.reasons.some((r) => r.startsWith(marker))).map((t) => t.path);
}

/** Targets per module, with the union of their owners (each target's owners are computed once, above). */
function modulesOf(targets: readonly { module?: string; owners: string[] }[]): AnalysisReportInput['modules'] {
  const byModule = new Map<string, { files: number; owners: Set<string> }>();
  for (const t of targets) {
    const entry = byModule.get(t.module ?? '.') ?? { files: 0, owners: new Set<string>() };
    entry.files += 1;
    for (const owner of t.owners) entry.owners.add(owner);
    byModule.set(t.module ?? '.', entry);
  }
  return [...byModule.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, m]) => ({ name, files: m.files, owners: [...m.owners].sort() }));
}

function planSummary(task: TaskContract, env: PipelineEnv, files: number, planReason: string | undefined): string {
  const why = planReason ? ` (${planReason})` : '';
  if (task.steps.length > 0) {
    return `A draft PR would apply ${task.steps.length} deterministic recipe ${task.steps.length === 1 ? 'step' : 'steps'}, in this order, to ${files} ${files === 1 ? 'file' : 'files'}; no model would be asked. This run changed nothing${why}.`;
  }
  if (env.model)
    return `A draft PR would ask the model to change the ${files} editable target ${files === 1 ? 'file' : 'files'} below, within the task scope. This run changed nothing${why}.`;
  return `The task has no recipe steps and no model is configured, so a draft PR would have nothing to apply; the targets below are where the change would go. This run changed nothing${why}.`;
}

const WARNING_QUESTIONS: Partial<Record<(typeof TARGET_WARNING_CODES)[number], string>> = {
  SYMBOL_RESOLUTION_PARTIAL: 'Some names could not be resolved to a definition; are they spelled as in the code?',
  TARGET_SELECTION_EMPTY: 'No file matched the task; which files or symbols should change?',
  SCOPE_PATH_MISSING: 'A path of the task scope does not exist at this commit; is the scope right?',
  SEARCH_TRUNCATED: 'The search stopped at its limit; can the task scope (`paths`) be narrowed?',
};

/** What a maintainer should settle before a draft PR: ambiguities the intake and target selection noticed. */
function openQuestions(
  task: TaskContract,
  env: PipelineEnv,
  discovery: DiscoveryOutput | undefined,
  steps: readonly { text: string; files: string[] }[],
  gate: string | undefined,
  suggested: readonly RecipeStep[],
): string[] {
  const out: string[] = [];
  if (!discovery) out.push('The analysis stopped before target selection, so no file was looked at; see the progress comment for why.');
  if (task.kind === 'exploratory')
    out.push('The task names no symbol, file or recipe step, so the targets come from keyword search only: which files or symbols should change?');
  if (!task.paths || task.paths.length === 0)
    out.push('No scope (`paths`) was given, so the whole repository was searched: should the change stay inside one directory or module?');
  for (const w of discovery?.warnings ?? [])
    out.push(`${WARNING_QUESTIONS[w.code as keyof typeof WARNING_QUESTIONS] ?? 'Target selection noted:'} (${w.code}: ${w.message})`);
  steps.forEach((s, i) => {
    if (s.files.length === 0) out.push(`Step ${i + 1} (${s.text}) would change no file in scope: is the name right, or is it already done?`);
  });
  out.push(...targetQuestions(discovery?.targets ?? []));
  if (suggested.length > 0)
    out.push(`The words of the task suggest ${suggested.map(stepInWords).join(', then ')}: is that the change? See the ready-to-paste task.`);
  else if (task.steps.length === 0 && !env.model)
    out.push(`Does a recipe (${RECIPE_NAMES.join(', ')}) fit this change? Without steps or a model, a run can only analyse.`);
  if (gate === 'HUMAN_APPROVAL_BEFORE_PR')
    out.push('At this risk the policy asks for approval before a pull request: a maintainer would need to `/agent approve` the run.');
  return out;
}

/** Questions about the selected targets: those of low confidence, and those that would not be edited. */
function targetQuestions(targets: DiscoveryOutput['targets']): string[] {
  const out: string[] = [];
  const low = targets.filter((t) => t.allowedToEdit && t.rank < LOW_CONFIDENCE_RANK);
  if (low.length > 0)
    out.push(
      `${low.length} ${low.length === 1 ? 'target has' : 'targets have'} low confidence (rank below ${LOW_CONFIDENCE_RANK}): ${names(low.map((t) => t.path))}. Do they belong in the change?`,
    );
  const locked = targets.filter((t) => !t.allowedToEdit);
  if (locked.length > 0)
    out.push(
      `${locked.length} matching ${locked.length === 1 ? 'file' : 'files'} would not be edited (policy, generated or lockfile): ${names(locked.map((t) => t.path))}. Should someone change them by hand?`,
    );
  return out;
}

function names(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).map((p) => `\`${p}\``);
  return `${shown.join(', ')}${paths.length > shown.length ? `, and ${paths.length - shown.length} more` : ''}`;
}

/** A block that runs the steps as a draft PR with the task's scope and budgets, no mode (draft_pr is the default). */
function agentBlockOf(task: TaskContract, steps: RecipeStep[]): TaskBlock {
  const budgets = Object.fromEntries(Object.entries(task.budgets).filter(([, v]) => v !== undefined));
  return {
    ...(task.base ? { base: task.base } : {}),
    ...(task.paths && task.paths.length > 0 ? { paths: task.paths } : {}),
    steps,
    ...(Object.keys(budgets).length > 0 ? { budgets } : {}),
  };
}

/** An analysis: asked for (`mode: analysis`, `/agent analyze`), or planned as one (no steps and no model). */
export function isAnalysisRun(task: TaskContract, outputs: Readonly<Partial<Record<PhaseName, unknown>>>): boolean {
  const o = outputs as Record<string, unknown>;
  return task.mode === 'analysis' || (o.planning !== undefined && planOf(o).strategy === 'analysis');
}

/**
 * Render and store an analysis run's report: the full text as the attempt's `run-report.md`, and
 * the text bounded to a GitHub comment, which is what the worker posts and the CLI prints.
 */
export async function storeAnalysisReport(
  env: PipelineEnv,
  task: TaskContract,
  outputs: Readonly<Partial<Record<PhaseName, unknown>>>,
  state: { status: string; baseCommitSha?: string; artifacts: { name: string; url: string }[] },
): Promise<{ key: string; report: string }> {
  const input = await buildAnalysisReport(env, task, outputs, state);
  const key = `${env.keys.attempt(env.attempt).prefix}run-report.md`;
  await env.store.put(key, renderAnalysisReport(input), { contentType: 'text/markdown; charset=utf-8' });
  return { key, report: renderAnalysisReport(input, { maxChars: GITHUB_COMMENT_LIMIT }) };
}

/**
 * The block an analysis offers for a task read from prose: the steps the repository confirmed, or,
 * when none was, the readings that are valid steps as written (each line above says why it did not run).
 */
function offeredSteps(inferred: InferredSteps): RecipeStep[] {
  if (inferred.steps.length > 0) return inferred.steps;
  return inferred.readings.flatMap((r) => {
    const parsed = RecipeStep.safeParse(r.step);
    return parsed.success ? [parsed.data] : [];
  });
}

/** What the issue's words were read as, and for each request why it runs or not. */
function understoodLines(inferred: InferredSteps | undefined): string[] {
  if (!inferred) return [];
  const out = inferred.readings.map((r) => {
    const step = RecipeStep.safeParse(r.step);
    const as = step.success ? stepInWords(step.data) : `${String(r.step.recipe)} ${JSON.stringify(r.step)}`;
    if (!r.grounded) return `Read “${r.text}” as ${as}, which does not run: ${r.why ?? 'the repository does not confirm it'}.`;
    return inferred.mode === 'suggest'
      ? `Read “${r.text}” as ${as}, confirmed by the repository (${r.files.length} ${r.files.length === 1 ? 'file' : 'files'}); \`agent.inferSteps: suggest\` runs nothing read from prose.`
      : `Read “${r.text}” as ${as}, confirmed by the repository.`;
  });
  for (const u of inferred.unread) out.push(`Not read: “${u.text}”: ${u.why}.`);
  return out;
}

/** The task block the report offers: the task's own steps, or the steps its words suggest. */
function offeredBlock(task: TaskContract, suggested: RecipeStep[]): Pick<AnalysisReportInput, 'agentBlock' | 'agentBlockSource'> {
  if (task.steps.length > 0) return { agentBlock: agentBlockOf(task, task.steps) };
  return suggested.length > 0 ? { agentBlock: agentBlockOf(task, suggested), agentBlockSource: 'suggested' } : {};
}
