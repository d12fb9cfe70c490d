import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../util/digest.js';
import type { CommandOutcome, VerifyCommand, VerifyLimits, VerifyRun } from '../verify/verifier.js';

/**
 * Verification builds of the deployed App (docs/architecture.md, "Verification"): the worker
 * writes the candidate and a build request under its attempt, the trusted verifier function
 * starts the build and writes the trusted result under the run's `verify/<digest>/`, which the
 * worker reads when it resumes. These are the records and the bounds each side checks.
 */

export const CODEBUILD_WHERE = 'AWS CodeBuild';

/** Most commands one build runs (the policy allows 20 setup and 50 build commands; the map adds per module). */
export const MAX_BUILD_COMMANDS = 100;
/**
 * Most wall time of a build's commands: the build's run-scoped session is a chained role
 * session, which lasts one hour at most, and the result must be written before it expires.
 */
export const MAX_BUILD_BUDGET_MS = 50 * 60_000;
/** Largest candidate archive a build is started for. */
export const MAX_SOURCE_BYTES = 256 * 1024 * 1024;
/** Head and tail of each command's output the build keeps (the middle is counted, not kept). */
export const BUILD_HEAD_BYTES = 4 * 1024;
export const BUILD_TAIL_BYTES = 12 * 1024;
/** Largest build result the verifier reads: every command's excerpts in base64, with room for the rest. */
export const MAX_BUILD_RESULT_BYTES = 3 * 1024 * 1024;

const Digest = z.string().regex(/^[0-9a-f]{64}$/);
const Base64 = (max: number) =>
  z
    .string()
    .max(Math.ceil(max / 3) * 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/);

export const BuildCommand = z.strictObject({
  run: z.string().min(1).max(4000),
  cwd: z
    .string()
    .min(1)
    .max(1000)
    .refine(
      (cwd) => cwd === '.' || (!cwd.startsWith('/') && !cwd.split('/').some((s) => s === '..' || s === '' || s === '.')),
      'a relative directory inside the checkout',
    ),
  kind: z.enum(['setup', 'build', 'test']),
  source: z.string().max(500),
});

export const BuildLimits = z.strictObject({
  commandTimeoutMs: z.number().int().min(1000).max(3_600_000),
  budgetMs: z.number().int().min(1000).max(7_200_000),
  maxOutputBytes: z
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024),
  memoryMb: z.number().int().min(64).max(65536).optional(),
  network: z.boolean(),
});

/** `attempts/<n>/verify/<digest>/build-request.json`: written by the worker (untrusted; the verifier re-checks every field). */
export const VerifyBuildRequest = z.strictObject({
  schemaVersion: z.literal(1),
  runId: z.string().regex(/^[a-z2-7]{12}$/),
  attempt: z.number().int().positive().max(999_999),
  /** The continuation the worker resumes as when the result is written. */
  continuation: z.number().int().positive().max(999_999),
  digest: Digest,
  sourceSha256: Digest,
  sourceBytes: z.number().int().positive().max(MAX_SOURCE_BYTES),
  commands: z.array(BuildCommand).min(1).max(MAX_BUILD_COMMANDS),
  limits: BuildLimits,
  requestedAt: z.string().max(40),
});
export type VerifyBuildRequest = z.infer<typeof VerifyBuildRequest>;

/** What one command did, as the build's runner wrote it (excerpts in base64, bounded). */
const BuildCommandLine = z.union([
  z.strictObject({
    index: z.number().int().nonnegative().max(MAX_BUILD_COMMANDS),
    exitCode: z.number().int().min(0).max(255).nullable(),
    durationMs: z.number().int().nonnegative(),
    timedOut: z.boolean(),
    outputLimited: z.boolean(),
    outputBytes: z.number().int().nonnegative(),
    head: Base64(BUILD_HEAD_BYTES),
    tail: Base64(BUILD_TAIL_BYTES),
  }),
  z.strictObject({ index: z.number().int().nonnegative().max(MAX_BUILD_COMMANDS), skipped: z.enum(['budget', 'setup']) }),
]);

/** `verify/<digest>/build/result.json`: written by the build (the project's own code ran there: untrusted, bounded). */
export const BuildResult = z.strictObject({
  schemaVersion: z.literal(1),
  /** The checkout's absolute path in the build, base64. */
  root: Base64(1000),
  commands: z.array(BuildCommandLine).max(MAX_BUILD_COMMANDS),
});
export type BuildResult = z.infer<typeof BuildResult>;

/** `verify/<digest>/started.json`: the verifier started this build (written once). */
export const StartedBuild = z.strictObject({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  continuation: z.number().int().positive(),
  digest: Digest,
  buildId: z.string().min(1).max(300),
  /** How many commands the build was given (its result reports at most these). */
  commands: z.number().int().positive().max(MAX_BUILD_COMMANDS),
  startedAt: z.string(),
});
export type StartedBuild = z.infer<typeof StartedBuild>;

const TrustedOutcome = z.strictObject({
  index: z.number().int().nonnegative(),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().int().nonnegative(),
  timedOut: z.boolean(),
  outputLimited: z.boolean(),
  outputBytes: z.number().int().nonnegative(),
  output: z.string().max(BUILD_HEAD_BYTES + BUILD_TAIL_BYTES + 100),
  skipped: z.string().max(300).optional(),
});

/** `verify/<digest>/result.json`: the verifier's result (only the verifier function writes it). */
export const VerifyResult = z.strictObject({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  continuation: z.number().int().positive(),
  digest: Digest,
  buildId: z.string().max(300),
  /** CodeBuild's build status (SUCCEEDED, FAILED, FAULT, TIMED_OUT, STOPPED) or why no build ran. */
  buildStatus: z.string().max(40),
  checkoutRoot: z.string().max(1000),
  outcomes: z.array(TrustedOutcome).max(MAX_BUILD_COMMANDS),
  /** Why the build left no usable result (it failed before its commands, or wrote something invalid). */
  failure: z.string().max(500).optional(),
  completedAt: z.string(),
});
export type VerifyResult = z.infer<typeof VerifyResult>;

/** What one build is for: the candidate's bytes, the commands and the limits, digested together. */
export function buildDigest(sourceSha256: string, commands: readonly VerifyCommand[], limits: VerifyLimits): string {
  return sha256Hex(canonicalJson({ sourceSha256, commands: commands.map(({ run, cwd, kind, source }) => ({ run, cwd, kind, source })), limits }));
}

/** The limits a build runs under: the policy's, with the budget held under what its session lasts. */
export function buildLimits(limits: VerifyLimits): VerifyLimits {
  return { ...limits, budgetMs: Math.min(limits.budgetMs, MAX_BUILD_BUDGET_MS), commandTimeoutMs: Math.min(limits.commandTimeoutMs, MAX_BUILD_BUDGET_MS) };
}

const SKIP_TEXT = {
  budget: 'the verification budget (agent.verify.budgetSeconds) was spent',
  setup: 'a setup command failed',
} as const;

function decode(base64: string): string {
  const binary = atob(base64);
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** The build's own result, turned into the trusted record's outcomes (one per command the request named, at most). */
export function trustedOutcomes(build: BuildResult, commandCount: number): VerifyResult['outcomes'] {
  const seen = new Set<number>();
  const out: VerifyResult['outcomes'] = [];
  for (const line of build.commands) {
    if (line.index >= commandCount || seen.has(line.index)) continue;
    seen.add(line.index);
    if ('skipped' in line) {
      out.push({
        index: line.index,
        exitCode: null,
        durationMs: 0,
        timedOut: false,
        outputLimited: false,
        outputBytes: 0,
        output: '',
        skipped: SKIP_TEXT[line.skipped],
      });
      continue;
    }
    const head = decode(line.head);
    const tail = decode(line.tail);
    const whole = line.outputBytes <= BUILD_HEAD_BYTES + BUILD_TAIL_BYTES;
    const output = whole ? head + tail.slice(Math.max(0, head.length + tail.length - line.outputBytes)) : `${head}\n[...]\n${tail}`;
    const { exitCode, durationMs, timedOut, outputLimited, outputBytes } = line;
    out.push({
      index: line.index,
      exitCode,
      durationMs,
      timedOut,
      outputLimited,
      outputBytes,
      output: output.slice(0, BUILD_HEAD_BYTES + BUILD_TAIL_BYTES + 100),
    });
  }
  return out.sort((a, b) => a.index - b.index);
}

/** The checkout root the build reported. */
export function buildRoot(build: BuildResult): string {
  return decode(build.root).slice(0, 1000);
}

/** The trusted result as the verifier port returns it: a command the build did not report did not run. */
export function verifyRunOf(result: VerifyResult, commands: readonly VerifyCommand[]): VerifyRun {
  const byIndex = new Map(result.outcomes.map((o) => [o.index, o]));
  const missing = result.failure
    ? `the build ended ${result.buildStatus} before it ran: ${result.failure}`
    : `the build (${result.buildStatus}) did not run it`;
  const outcomes: CommandOutcome[] = commands.map((command, index) => {
    const o = byIndex.get(index);
    if (!o) return { command, exitCode: null, durationMs: 0, timedOut: false, outputLimited: false, outputBytes: 0, output: '', skipped: missing };
    const { exitCode, durationMs, timedOut, outputLimited, outputBytes, output, skipped } = o;
    return { command, exitCode, durationMs, timedOut, outputLimited, outputBytes, output, ...(skipped ? { skipped } : {}) };
  });
  return { where: CODEBUILD_WHERE, checkoutRoot: result.checkoutRoot, outcomes };
}
