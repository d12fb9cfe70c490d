import type { PhaseName } from '../phases/phase-contracts.js';
import { PHASE_CONTRACTS, PHASE_NAMES } from '../phases/phase-contracts.js';
import type { Checkpoint } from '../phases/orchestrator.js';
import type { RunReportInput } from '../phases/run-report-schema.js';
import type { TaskContract } from '../task/task-contract.js';
import { changeOf } from './phases/change-phase.js';
import { discoveryOf } from './phases/discovery-phase.js';
import { planOf } from './phases/planning-phase.js';
import { reviewOf } from './phases/review-phase.js';
import { verificationOf } from './phases/verification-phase.js';
import { viewsFor, type PipelineEnv } from './pipeline-env.js';

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
  state: { status: string; headCommitSha?: string; artifacts: { name: string; url: string }[]; current?: PhaseName },
): RunReportInput {
  const views = viewsFor(env, task);
  const out = parsedOutputs(outputs);
  const { discovery, plan, change, review } = out;
  const done = new Set(checkpoints.map((c) => c.phase));
  const targets = targetsOf(out);
  return {
    schemaVersion: 1,
    runId: env.request.runId,
    attempt: env.attempt,
    status: state.status,
    title: env.request.issue?.title ?? env.request.task?.title ?? task.title,
    objective: task.objective,
    mode: task.mode,
    repository: `${env.owner}/${env.repo}`,
    baseRef: env.baseRef,
    baseCommitSha: review?.diffSummary.baseCommitSha ?? checkpoints[0]?.baseCommitSha ?? 'unknown',
    headCommitSha: state.headCommitSha,
    agentBranch: env.agentBranch,
    createdAt: env.createdAt,
    scope: { paths: task.paths ?? [], untouched: ['CI workflows (.github/workflows/)', 'lockfiles (listed below with their refresh command)', ...env.policy.agent.forbiddenPaths.filter((p) => p !== '.github/workflows/**').map((p) => `forbidden: ${p}`)] },
    strategy: {
      engine: plan ? (plan.strategy === 'analysis' ? 'none' : plan.strategy) : 'none',
      steps: (plan?.segments ?? []).map((s) => (s.step ? `${s.id}: ${JSON.stringify(s.step)}` : `${s.id}: model within ${s.paths.length} file(s)`)),
      notes: [...(plan ? [plan.reason] : []), ...(change?.segments.flatMap((s) => s.notes) ?? [])],
    },
    targets: targets.targets,
    verification: verificationSection(env, out, state.status),
    lockfiles: (change?.segments ?? []).flatMap((s) => s.lockfilesToRefresh).map((l) => ({ path: l.lockfile, command: l.command, why: 'lockfiles are never edited by draftsman' })),
    risk: review ? { level: review.risk.riskLevel, score: review.risk.riskScore, reasons: review.risk.reasons, requiredGate: review.risk.requiredGate } : { level: 'LOW', score: 0, reasons: ['not assessed: the run stopped before the diff review'] },
    policyVerdicts: policyVerdicts(out, views.limits),
    antiCheat: (out.verification?.cheats ?? []).map((c) => ({ rule: c.rule, path: c.path, line: c.line, snippet: c.snippet, severity: c.severity === 'HIGH' ? 'HIGH' : 'MEDIUM' })),
    budget: budgetSection(out, checkpoints, views.limits),
    phases: PHASE_NAMES.map((name) => ({ name: PHASE_CONTRACTS[name].title, state: done.has(name) ? 'done' : name === state.current ? 'running' : 'pending' })),
    modules: targets.modules,
    artifacts: state.artifacts,
    warnings: (discovery?.warnings ?? []).map((w) => `${w.code}: ${w.message}`),
  };
}

/** The changed files (after the review) or the selected targets, with why each is there, and files per top-level module. */
function targetsOf({ discovery, change, review }: Outputs): Pick<RunReportInput, 'targets' | 'modules'> {
  const diffFiles = new Map((review?.diffSummary.files ?? []).map((f) => [f.path, f]));
  const changedBy = new Map<string, string[]>();
  for (const segment of change?.segments ?? []) for (const f of segment.changedFiles) changedBy.set(f.path, [...(changedBy.get(f.path) ?? []), `${segment.id}: ${f.edits} edit(s)`]);
  const discovered = new Map((discovery?.targets ?? []).map((t) => [t.path, t.reasons]));
  const targetPaths = review ? [...diffFiles.keys()] : (discovery?.targets ?? []).map((t) => t.path).slice(0, 50);
  const moduleFiles = new Map<string, number>();
  for (const path of targetPaths) {
    const name = path.includes('/') ? path.slice(0, path.indexOf('/')) : '.';
    moduleFiles.set(name, (moduleFiles.get(name) ?? 0) + 1);
  }
  return {
    targets: targetPaths.map((path) => {
      const f = diffFiles.get(path);
      return { path, change: f?.kind, insertions: f?.insertions, deletions: f?.deletions, reasons: [...(changedBy.get(path) ?? []), ...(discovered.get(path) ?? []).slice(0, 3)] };
    }),
    modules: [...moduleFiles.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, files]) => ({ name, files })),
  };
}

function verificationSection(env: PipelineEnv, { verification, review }: Outputs, status: string): RunReportInput['verification'] {
  const staticChecks = verification?.report.checks.map((c) => ({ name: c.name, status: c.status, detail: c.detail })) ?? [];
  const scopeCheck = review ? [{ name: 'Scope guard (paths, policy, budgets)', status: review.scope.status === 'PASS' ? ('PASSED' as const) : ('FAILED' as const), detail: review.scope.violations.map((v) => v.message).join('; ') || 'every changed file is in scope' }] : [];
  return {
    checks: [...staticChecks, ...scopeCheck],
    notRun: verification?.report.notRun ?? [{ name: 'required verification', why: `the run stopped before verification (${status})` }],
    ciCommands: env.policy.agent.build.commands,
    verifier: env.policy.agent.build.defaultVerifier,
  };
}

type Limits = ReturnType<typeof viewsFor>['limits'];

function policyVerdicts({ review }: Outputs, limits: Limits): RunReportInput['policyVerdicts'] {
  if (!review) return [];
  return [
    { rule: 'forbidden paths and workflows', verdict: review.scope.violations.some((v) => v.rule === 'FORBIDDEN_PATH' || v.rule === 'WORKFLOW_CHANGE_NOT_PERMITTED') ? 'FAIL' : 'PASS' },
    { rule: `file budget (${limits.maxFiles})`, verdict: review.diffSummary.filesChanged <= limits.maxFiles ? 'PASS' : 'FAIL' },
    { rule: `line budget (${limits.maxLines})`, verdict: review.diffSummary.insertions + review.diffSummary.deletions <= limits.maxLines ? 'PASS' : 'FAIL' },
    ...(review.scope.violations.length > 0 && review.scope.status === 'PASS' ? [{ rule: `approval gate ${review.scope.gateId}`, verdict: 'APPROVED' as const }] : []),
  ];
}

function budgetSection({ change, review }: Outputs, checkpoints: readonly Checkpoint[], limits: Limits): RunReportInput['budget'] {
  return {
    steps: { used: checkpoints.reduce((n, c) => n + c.stepsUsed, 0) },
    modelCalls: { used: change?.segments.reduce((n, s) => n + (s.model?.calls ?? 0), 0) ?? 0, limit: limits.maxModelCalls },
    tokens: { used: change?.segments.reduce((n, s) => n + (s.model?.tokens ?? 0), 0) ?? 0 },
    files: { used: review?.diffSummary.filesChanged ?? 0, limit: limits.maxFiles },
    lines: { used: (review?.diffSummary.insertions ?? 0) + (review?.diffSummary.deletions ?? 0), limit: limits.maxLines },
  };
}
