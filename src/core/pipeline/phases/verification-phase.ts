import { z } from 'zod';
import { diffWorkspaceChanges } from '../../git/git-diff.js';
import { describeFindings, scanChanges, type SecretFinding } from '../../secrets/secret-scan.js';
import { CHECK_NAMES, isPartialFailure, VerificationReport } from '../../git/verification-report.js';
import { detectCheats, packageScriptCheats } from '../../phases/anti-cheat.js';
import type { NameProblem } from '../../syntax/name-bindings.js';
import { describeNames, nameProblemsOf } from '../name-problems.js';
import type { PhaseContext, PhaseHandler, PhaseOutcome } from '../../phases/orchestrator.js';
import { COMMAND_STATUS_TEXT } from '../../verify/command-result.js';
import { runProjectChecks, type ProjectChecks } from '../project-checks.js';
import { parseClusters, topLevelModule } from '../parse-clusters.js';
import { viewsFor, type PipelineEnv } from '../pipeline-env.js';
import { taskOf } from './intake-phase.js';

export const VerificationOutput = z.object({
  report: VerificationReport,
  cheats: z.array(z.object({ rule: z.string(), path: z.string(), line: z.number().optional(), snippet: z.string(), severity: z.string() })),
  secretFindings: z.array(z.object({ path: z.string(), line: z.number(), rule: z.string(), redactedPreview: z.string() })),
});
export type VerificationOutput = z.infer<typeof VerificationOutput>;

export function verificationOf(outputs: Readonly<Record<string, unknown>>): VerificationOutput {
  return VerificationOutput.parse(outputs.regression_verification);
}

function commandSummary(project: ProjectChecks | undefined): string {
  if (!project || project.commands.length === 0) return `${project?.notRun.length ?? 0} command(s) left to CI`;
  const ran = project.commands.filter((c) => c.status !== 'NOT_RUN');
  return `${ran.length} project command(s) run, ${project.failed.length} failing`;
}

/**
 * Where the project's commands stop the run: the runner the policy asks for is not available,
 * or a command failed, while the policy says the checks are required.
 */
function projectStop(env: PipelineEnv, project: ProjectChecks): Pick<PhaseOutcome, 'summary' | 'stop'> | undefined {
  if (!env.policy.agent.verify.required) return undefined;
  if (project.unavailable)
    return {
      summary: `the project checks cannot run: ${project.unavailable}`,
      stop: { state: 'FAILED', reason: 'VERIFIER_UNAVAILABLE', details: { runner: env.policy.agent.verify.runner, why: project.unavailable } },
    };
  if (project.failed.length === 0) return undefined;
  const failed = project.failed.map((c) => ({ command: c.run, cwd: c.cwd, status: c.status, exitCode: c.exitCode, failures: c.failures.slice(0, 10) }));
  return {
    summary: `project checks failed: ${project.failed.map((c) => `${c.run} (${COMMAND_STATUS_TEXT[c.status]})`).join('; ')}`,
    stop: { state: 'FAILED', reason: 'CHECKS_FAILED', details: { commands: failed } },
  };
}

/** The static checks of the change: parse, secrets, names, anti-cheat. */
async function staticChecks(env: PipelineEnv, context: PhaseContext) {
  const task = taskOf(context.outputs);
  const views = viewsFor(env, task);
  const ws = context.workspace;
  await context.runtime.use('verify_parse');
  const { clusters, checked } = await parseClusters(ws, env.syntax, topLevelModule);
  await context.runtime.use('git_diff');
  const diff = await diffWorkspaceChanges(ws, { rules: views.rules });
  const cheats = detectCheats(new TextDecoder().decode(diff.patch), views.rules).findings;
  const scanned = [];
  const names: NameProblem[] = [];
  for (const change of ws.changes()) {
    const base = ws.baseEntry(change.path);
    const oldBytes = base && base.mode !== '160000' ? await ws.readBase(change.path) : undefined;
    const newBytes = change.kind === 'DELETED' ? undefined : await ws.read(change.path);
    scanned.push({ path: change.path, oldBytes, newBytes });
    cheats.push(...packageScriptCheats(change.path, oldBytes, newBytes));
    names.push(...nameProblemsOf(change.path, oldBytes, newBytes));
  }
  const secrets = scanChanges(scanned, views.rules);
  const highCheats = cheats.filter((c) => c.severity === 'HIGH');
  const checks: VerificationReport['checks'] = [
    {
      name: CHECK_NAMES.parse,
      status: clusters.length === 0 ? 'PASSED' : 'FAILED',
      detail: clusters.length === 0 ? `${checked.length} file(s) parsed` : clusters.map((c) => c.id).join(', '),
      files: checked,
    },
    {
      name: CHECK_NAMES.secrets,
      status: secrets.length === 0 ? 'PASSED' : 'FAILED',
      detail: secrets.length === 0 ? 'no finding' : `${secrets.length} finding(s): ${describeFindings(secrets, 10)}`,
    },
    {
      name: CHECK_NAMES.names,
      status: names.length === 0 ? 'PASSED' : 'FAILED',
      detail: describeNames(names),
    },
    {
      name: CHECK_NAMES.antiCheat,
      status: highCheats.length === 0 ? 'PASSED' : 'FAILED',
      detail: cheats.length === 0 ? 'no finding' : cheats.map((c) => `${c.rule} in ${c.path}`).join('; '),
    },
  ];
  return { checks, cheats, secrets };
}

interface Evidence {
  output: VerificationOutput;
  checks: VerificationReport['checks'];
  cheats: { rule: string; path: string }[];
  secrets: SecretFinding[];
  project: ProjectChecks | undefined;
  failed: boolean;
}

/** How verification ends: blocked by a secret, stopped by failed checks, published as partial, or passed. */
function decide(env: PipelineEnv, { output, checks, cheats, secrets, project, failed }: Evidence): PhaseOutcome {
  const report = output.report;
  if (secrets.length > 0) {
    return {
      output,
      summary: `secret scan: ${describeFindings(secrets)}`,
      stop: { state: 'BLOCKED', reason: 'SECRET_DETECTED', details: { findings: output.secretFindings } },
    };
  }
  const stop = project && projectStop(env, project);
  if (stop) return { output, ...stop };
  // A partial change the policy publishes: only the parse and name checks failed, and it says so (title and body).
  const partial = failed && env.policy.agent.publishPartial && isPartialFailure(report);
  if (failed && !partial) {
    return {
      output,
      summary: 'required verification failed',
      stop: { state: 'FAILED', reason: 'VERIFICATION_FAILED', details: { checks: checks.filter((c) => c.status === 'FAILED') } },
    };
  }
  if (partial)
    return {
      output,
      summary: `verification failed; published as a partial change (agent.publishPartial): ${checks
        .filter((c) => c.status === 'FAILED')
        .map((c) => c.name)
        .join('; ')}`,
      risks: checks.filter((c) => c.status === 'FAILED').map((c) => `${c.name}: ${c.detail ?? 'failed'}`),
    };
  const failing = project?.failed ?? [];
  return {
    output,
    summary: `required verification passed (${checks.length} checks); ${commandSummary(project)}`,
    risks: [...cheats.map((c) => `${c.rule} in ${c.path}`), ...failing.map((c) => `project check ${c.run}: ${COMMAND_STATUS_TEXT[c.status]}`)],
  };
}

/**
 * Regression verification: every changed file parses, the secret scan, the name check and the
 * anti-cheat detectors find nothing; then, where the policy asks for it (agent.verify), the
 * project's own build and test commands run on the change in a sandbox. Commands that did not
 * run are listed with why, for CI to run.
 */
export function verificationPhase(env: PipelineEnv): PhaseHandler {
  return {
    name: 'regression_verification',
    async run(context) {
      const { checks, cheats, secrets } = await staticChecks(env, context);
      const failed = checks.some((c) => c.status === 'FAILED');
      // The project's own commands run on a change whose static checks passed (agent.verify).
      const project = failed ? undefined : await runProjectChecks(env, context);
      const notRun = project?.notRun ?? [{ name: 'build and tests', why: 'not run: the static checks failed first' }];
      const report: VerificationReport = {
        status: failed ? 'FAILED' : 'PASSED',
        checks,
        notRun,
        ...(project?.commands.length ? { commands: project.commands, ...(project.ranIn ? { commandsRanIn: project.ranIn } : {}) } : {}),
      };
      const output: VerificationOutput = {
        report,
        cheats: cheats.map((c) => ({ rule: c.rule, path: c.path, line: c.line, snippet: c.snippet, severity: c.severity })),
        secretFindings: secrets.map((s) => ({ path: s.path, line: s.line, rule: s.rule, redactedPreview: s.redactedPreview })),
      };
      return decide(env, { output, checks, cheats, secrets, project, failed });
    },
  };
}
