/**
 * The verifier port: runs the project's own commands (setup, build, tests, formatter checks) on
 * the candidate (the verified tree after the change) in a sandbox, within limits, and reports
 * what each command did. Runners live outside core: a local sandbox for the CLI and `serve`, a
 * managed build service for the deployed App. See docs/architecture.md, "Verification".
 */

/** One file of the candidate tree as the runner writes it into its checkout. */
export interface CheckoutFile {
  path: string;
  /** Git mode: 100644, 100755 or 120000 (a symlink, `content` is its target). */
  mode: string;
  content: Uint8Array;
}

export type CommandKind = 'setup' | 'build' | 'test';

export interface VerifyCommand {
  /** A shell line (`npm test`, `python -m pytest -q`), as the policy writes it or the map infers it. */
  run: string;
  /** Directory relative to the repository root (`.` for the root). */
  cwd: string;
  kind: CommandKind;
  /** Where the command comes from, for the PR body (`agent.build.commands`, `repository map: module app (npm)`). */
  source: string;
}

export interface VerifyLimits {
  /** Wall time of one command. */
  commandTimeoutMs: number;
  /** Wall time of every command together: commands past it are not started. */
  budgetMs: number;
  /** Output (stdout and stderr together) past which the command is stopped. */
  maxOutputBytes: number;
  /** Address-space limit per process, when set. */
  memoryMb?: number;
  /** Whether the commands may reach the network (package registries). */
  network: boolean;
}

export interface VerifyRequest {
  /** The candidate tree: every file of the workspace after the change. */
  files: () => AsyncIterable<CheckoutFile>;
  commands: readonly VerifyCommand[];
  limits: VerifyLimits;
}

/** What one command did, as the runner saw it. */
export interface CommandOutcome {
  command: VerifyCommand;
  /** Exit code; `null` when it was killed (time or output limit) or could not start. */
  exitCode: number | null;
  durationMs: number;
  timedOut: boolean;
  /** Stopped because its output passed `maxOutputBytes`. */
  outputLimited: boolean;
  /** Bytes it printed in all. */
  outputBytes: number;
  /** A bounded excerpt of its output (start and end), raw: the caller scrubs it. */
  output: string;
  /** Not run, and why (the budget was spent, a setup command failed). */
  skipped?: string;
  /** JUnit XML reports the command wrote (junit-reports.ts), bounded by `JUNIT_LIMITS`; raw: the caller parses them. */
  reports?: { path: string; text: string }[];
}

export interface VerifyRun {
  /** Where the commands ran, for the PR body (`local sandbox (bubblewrap)`, `AWS CodeBuild`). */
  where: string;
  /** The checkout's absolute path inside the sandbox, so reported paths can be made relative. */
  checkoutRoot: string;
  outcomes: CommandOutcome[];
}

export interface Verifier {
  readonly runner: 'local' | 'codebuild';
  /** Whether this runner can run here; when not, why (no sandbox available, not configured). */
  available(): Promise<{ ok: true } | { ok: false; why: string }>;
  run(request: VerifyRequest): Promise<VerifyRun>;
}
