import { describeFindings } from '../../core/secrets/secret-scan.js';
import type { PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { formatProblems, type DocumentProblem } from '../../core/policy/document-problem.js';
import { exitCodeFor } from '../../core/runs/run-status.js';
import type { CliIo } from './cli-io.js';
import type { CliRun } from './begin-run.js';
import type { TerminalReporter } from './terminal-reporter.js';

/**
 * What a stage command prints when the attempt is over, and its exit code: the summary on the
 * terminal, document problems as `file:line:col: message` lines, the run report (run, without
 * --json), or one JSON object as the last stdout line (--json).
 */
export function writeOutcome(run: CliRun, result: PipelineResult, io: CliIo, reporter: TerminalReporter, publishNote?: string): number {
  const { args, store, keys } = run;
  const artifacts = Object.fromEntries(
    Object.entries(result.artifacts).map(([name, key]) => [name, store.pathOf(key.replace(/\/$/, '')) + (key.endsWith('/') ? '/' : '')]),
  );
  const runDir = store.pathOf(keys.prefix.replace(/\/$/, ''));
  reporter.finish(result, runDir, publishNote);
  const problems = documentProblems(result.details);
  if (problems.length > 0) io.stderr(`${formatProblems(problems)}\n`);
  const findings = secretFindings(result.details);
  if (findings.length > 0) io.stderr(`secret scan: ${describeFindings(findings, 20)} (values not shown)\n`);
  if (!args.json && result.report && args.command === 'run') io.stdout(`${result.report}\n`);
  const status = result.status === 'SUSPENDED' ? 'FAILED' : result.status;
  if (args.json) {
    const timings = reporter.timings();
    io.stdout(
      `${JSON.stringify({
        runId: run.runId,
        attempt: run.attempt.attempt,
        status,
        ...(result.reason ? { reason: result.reason } : {}),
        baseRef: result.baseRef ?? args.ref ?? 'HEAD',
        baseCommitSha: result.baseCommitSha ?? null,
        ...(result.headCommitSha ? { headCommitSha: result.headCommitSha } : {}),
        ...(result.headTreeSha ? { headTreeSha: result.headTreeSha } : {}),
        agentBranch: result.agentBranch,
        runDir,
        artifacts,
        ...(publishNote ? { publish: publishNote } : {}),
        ...(result.details ? { details: result.details } : {}),
        ...(timings.length ? { phases: timings } : {}),
      })}\n`,
    );
  }
  if (publishNote?.startsWith('refused')) return 1;
  return exitCodeFor(status);
}

/** The secret-scan findings (rule, file, line) a SECRET_DETECTED stop carries in its details, if any. */
function secretFindings(details: Record<string, unknown> | undefined): { rule: string; path: string; line: number }[] {
  const findings = details?.findings;
  if (!Array.isArray(findings)) return [];
  return findings.filter(
    (f): f is { rule: string; path: string; line: number } =>
      typeof f === 'object' && f !== null && typeof f.rule === 'string' && typeof f.path === 'string' && typeof f.line === 'number',
  );
}

/** The document problems (task block, policy) a result carries in its details, if any. */
function documentProblems(details: Record<string, unknown> | undefined): DocumentProblem[] {
  const problems = details?.problems;
  if (!Array.isArray(problems)) return [];
  return problems.filter(
    (p): p is DocumentProblem =>
      typeof p === 'object' && p !== null && typeof p.file === 'string' && typeof p.line === 'number' && typeof p.column === 'number',
  );
}
