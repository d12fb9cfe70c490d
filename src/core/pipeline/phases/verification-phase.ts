import { z } from 'zod';
import { diffWorkspaceChanges } from '../../git/git-diff.js';
import { describeFindings, scanChanges } from '../../secrets/secret-scan.js';
import { CHECK_NAMES, isPartialFailure, VerificationReport } from '../../git/verification-report.js';
import { detectCheats, packageScriptCheats } from '../../phases/anti-cheat.js';
import type { NameProblem } from '../../syntax/name-bindings.js';
import { describeNames, nameProblemsOf } from '../name-problems.js';
import type { PhaseHandler } from '../../phases/orchestrator.js';
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

/**
 * Regression verification, static by design: every changed file parses, the
 * secret scan finds nothing, the anti-cheat detectors find nothing. Build commands are never
 * run here; the report lists them as not run, with why, for CI to run.
 */
export function verificationPhase(env: PipelineEnv): PhaseHandler {
  return {
    name: 'regression_verification',
    async run(context) {
      const task = taskOf(context.outputs);
      const views = viewsFor(env, task);
      const ws = context.workspace;
      await context.runtime.use('verify.parse');
      const { clusters, checked } = await parseClusters(ws, env.syntax, topLevelModule);
      await context.runtime.use('git.diff');
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
      const commands = env.policy.agent.build.commands;
      const notRun =
        commands.length > 0
          ? commands.map((command) => ({
              name: command,
              why: 'draftsman never runs build commands; CI runs them on the draft PR and the results are added here',
            }))
          : [
              {
                name: 'build and tests',
                why: 'draftsman never runs builds; the policy lists no agent.build.commands, so CI results are the only test evidence',
              },
            ];
      const failed = checks.some((c) => c.status === 'FAILED');
      const report: VerificationReport = { status: failed ? 'FAILED' : 'PASSED', checks, notRun };
      const output: VerificationOutput = {
        report,
        cheats: cheats.map((c) => ({ rule: c.rule, path: c.path, line: c.line, snippet: c.snippet, severity: c.severity })),
        secretFindings: secrets.map((s) => ({ path: s.path, line: s.line, rule: s.rule, redactedPreview: s.redactedPreview })),
      };
      if (secrets.length > 0) {
        return {
          output,
          summary: `secret scan: ${describeFindings(secrets)}`,
          stop: { state: 'BLOCKED', reason: 'SECRET_DETECTED', details: { findings: output.secretFindings } },
        };
      }
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
      return {
        output,
        summary: `required verification passed (${checks.length} checks); ${notRun.length} command(s) left to CI`,
        risks: cheats.map((c) => `${c.rule} in ${c.path}`),
      };
    },
  };
}
