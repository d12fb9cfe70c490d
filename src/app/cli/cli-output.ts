import { describeFindings } from '../../core/secrets/secret-scan.js';
import type { PipelineResult } from '../../core/pipeline/run-pipeline.js';
import { formatProblems, type DocumentProblem } from '../../core/policy/document-problem.js';
import { exitCodeFor } from '../../core/runs/run-status.js';
import type { CliIo } from './cli-io.js';
import type { CliRun } from './begin-run.js';
import type { TerminalReporter } from './terminal-reporter.js';
import { explain, outcomeOf } from './cli-explain.js';
import { findingsText, readFindings, type StageFindings } from './stage-findings.js';
import { terminalText } from '../../core/text/terminal-text.js';

/**
 * What a stage command prints when the attempt is over, and its exit code: the summary with the
 * cause and the next step on the terminal, document problems as `file:line:col: message` lines,
 * what the stages found (stdout), the run report (run, without --json), or one JSON object as the
 * last stdout line (--json), with everything found.
 */
export async function writeOutcome(run: CliRun, result: PipelineResult, io: CliIo, reporter: TerminalReporter, publishNote?: string): Promise<number> {
  const { args, store, keys } = run;
  const artifacts = Object.fromEntries(
    Object.entries(result.artifacts).map(([name, key]) => [name, store.pathOf(key.replace(/\/$/, '')) + (key.endsWith('/') ? '/' : '')]),
  );
  const runDir = store.pathOf(keys.prefix.replace(/\/$/, ''));
  const found = await readFindings(store, result);
  const { status, reason } = outcomeOf(result, publishNote);
  const explained = explain({
    status,
    reason,
    cause: publishNote?.replace(/^refused: [A-Z_]+: /, '') ?? found.error?.message,
    details: result.details,
    location: args.location,
    isUrl: args.isUrl,
    agentBranch: result.agentBranch,
    runDir,
  });
  const problems = documentProblems(result.details);
  if (problems.length > 0) io.stderr(`${formatProblems(problems)}\n`);
  const findings = secretFindings(result.details);
  if (findings.length > 0) io.stderr(`secret scan: ${describeFindings(findings, 20)} (values not shown)\n`);
  reporter.finish({ ...result, status, reason }, runDir, { publishNote, explained, logFile: run.logFile });
  if (!args.json) {
    const shown = findingsText(args.command, found);
    if (shown.length) io.stdout(`${shown.join('\n')}\n`);
    if (result.report && args.command === 'run') io.stdout(`${terminalText(result.report)}\n`);
  }
  if (args.json) io.stdout(`${JSON.stringify(jsonOutcome(run, result, reporter, { status, reason, explained, found, runDir, artifacts, publishNote }))}\n`);
  return exitCodeFor(status);
}

/** The `--json` object (the fields README's "The CLI" lists, then what this CLI adds: `message`, `runStatus`, `publish`, `details`, `found`, `phases`). */
function jsonOutcome(
  run: CliRun,
  result: PipelineResult,
  reporter: TerminalReporter,
  shown: {
    status: string;
    reason?: string;
    explained?: { cause: string; next: string };
    found: StageFindings;
    runDir: string;
    artifacts: Record<string, string>;
    publishNote?: string;
  },
): Record<string, unknown> {
  const { status, reason, explained, runDir, artifacts, publishNote } = shown;
  const { error: _error, ...found } = shown.found;
  const timings = reporter.timings();
  return {
    runId: run.runId,
    attempt: run.attempt.attempt,
    status,
    ...(reason ? { reason } : {}),
    ...(explained ? { message: `${explained.cause}; ${explained.next}` } : {}),
    ...(status !== result.status ? { runStatus: result.status } : {}),
    baseRef: result.baseRef ?? run.args.ref ?? 'HEAD',
    baseCommitSha: result.baseCommitSha ?? null,
    ...(result.headCommitSha ? { headCommitSha: result.headCommitSha } : {}),
    ...(result.headTreeSha ? { headTreeSha: result.headTreeSha } : {}),
    agentBranch: result.agentBranch,
    runDir,
    artifacts,
    ...(publishNote ? { publish: publishNote } : {}),
    ...(result.details ? { details: result.details } : {}),
    found,
    ...(timings.length ? { phases: timings } : {}),
  };
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
