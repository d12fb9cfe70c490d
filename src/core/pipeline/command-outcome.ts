import { redactSecrets } from '../secrets/secret-scan.js';
import type { CommandResult, CommandStatus } from '../verify/command-result.js';
import { parseJUnitXml } from '../verify/junit-reports.js';
import { MAX_FAILURES, parseOutput, type ParsedOutput } from '../verify/output-failures.js';
import type { CommandOutcome } from '../verify/verifier.js';

/** Lines and characters of output kept in the excerpt: its end, where tools print their verdict. */
const EXCERPT_LINES = 30;
const EXCERPT_CHARS = 3000;

function excerptOf(output: string, checkoutRoot: string): string {
  const lines = output.replaceAll(`${checkoutRoot}/`, '').trimEnd().split('\n');
  let tail = lines.slice(-EXCERPT_LINES).join('\n');
  if (tail.length > EXCERPT_CHARS) tail = `…${tail.slice(-EXCERPT_CHARS)}`;
  return redactSecrets(tail).text;
}

function statusOf(outcome: CommandOutcome, noTests: boolean): CommandStatus {
  if (outcome.skipped !== undefined) return 'NOT_RUN';
  if (outcome.timedOut) return 'TIMED_OUT';
  if (outcome.outputLimited) return 'OUTPUT_LIMIT';
  // pytest exits 5 when it collected no test.
  if (outcome.command.kind === 'test' && (noTests || (outcome.exitCode === 5 && /\bpytest\b/.test(outcome.command.run)))) return 'NO_TESTS';
  return outcome.exitCode === 0 ? 'PASSED' : 'FAILED';
}

function whyOf(outcome: CommandOutcome, status: CommandStatus, limits: { commandTimeoutMs: number; maxOutputBytes: number }): string | undefined {
  if (outcome.skipped !== undefined) return outcome.skipped;
  if (status === 'TIMED_OUT') return `stopped after ${Math.round(limits.commandTimeoutMs / 1000)} s (agent.verify.timeoutSeconds)`;
  if (status === 'OUTPUT_LIMIT') return `stopped after printing more than ${limits.maxOutputBytes} bytes (agent.verify.maxOutputBytes)`;
  if (status === 'NO_TESTS') return 'the command ran no test';
  if (status === 'FAILED' && outcome.exitCode === null) return 'the command could not start or was killed';
  return undefined;
}

/**
 * Whether the output named this test already: by the same name, or as `Class.method` without the
 * package (Surefire's summary says `OpsTest.add:10`, its report `calc.OpsTest.add`). A bare name
 * (pytest's `test_add`) matches only itself: another module may have a test of that name.
 */
function namedIn(named: readonly string[], test: string): boolean {
  return named.some((name) => name === test || (name.includes('.') && test.endsWith(`.${name}`)));
}

/**
 * The failures of a command's output and of the JUnit reports it wrote, once each (a report's
 * test named in the output too is kept as the output names it). A command whose reports list test
 * cases ran tests, whatever its output says.
 */
function failuresOf(outcome: CommandOutcome, checkoutRoot: string): ParsedOutput {
  const parsed = parseOutput(outcome.output, checkoutRoot);
  const reports = (outcome.reports ?? []).map((r) => parseJUnitXml(r.text));
  if (reports.length === 0) return parsed;
  const named = parsed.failures.flatMap((f) => (f.test ? [f.test] : []));
  const fromReports = reports.flatMap((r) => r.failures).filter((f) => !f.test || !namedIn(named, f.test));
  const ranTests = reports.some((r) => r.tests > 0);
  return {
    failures: [...parsed.failures, ...fromReports].slice(0, MAX_FAILURES),
    noTests: parsed.noTests && !ranTests,
    format: parsed.format ?? (fromReports.length > 0 ? 'junit xml' : undefined),
  };
}

/** What a runner saw, as the report keeps it: status, excerpt, parsed failures. */
export function commandResultOf(outcome: CommandOutcome, checkoutRoot: string, limits: { commandTimeoutMs: number; maxOutputBytes: number }): CommandResult {
  const parsed = failuresOf(outcome, checkoutRoot);
  const status = statusOf(outcome, parsed.noTests);
  const why = whyOf(outcome, status, limits);
  return {
    run: outcome.command.run,
    cwd: outcome.command.cwd,
    kind: outcome.command.kind,
    source: outcome.command.source,
    status,
    exitCode: outcome.exitCode,
    durationMs: Math.max(0, Math.round(outcome.durationMs)),
    excerpt: outcome.skipped !== undefined ? '' : excerptOf(outcome.output, checkoutRoot),
    failures: status === 'PASSED' ? [] : parsed.failures.map((f) => ({ ...f, message: f.message && redactSecrets(f.message).text })),
    ...(why ? { why } : {}),
  };
}
