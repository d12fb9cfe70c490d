import type { Clock, Logger, ModelProvider } from '../../core/ports.js';

/** What a CLI invocation talks to; tests replace the clock, streams and environment. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  clock: Clock;
  isTty: boolean;
  /** Model override for tests (else from DRAFTSMAN_MODEL_* variables). */
  model?: ModelProvider;
  /** Logger override (else JSON lines to stderr at warn level). */
  logger?: Logger;
}

/** A command line that cannot be run as given: exit code 2 with the usage text. */
export class UsageError extends Error {}

export const USAGE = `usage: draftsman <command> <repo> [options]

commands:
  ingest <repo>              ingestion only                       [--paths a,b]
  map <repo>                 ingestion + repository map
  targets <repo>             + target selection                   [--task TEXT | --task-file FILE] [--paths a,b]
  run <repo>                 the whole pipeline                   [--task | --task-file] [--paths] [--publish] [--approve] [--mode analysis]
  campaign check FILE        validate a campaign spec (file:line:col: message)
  campaign run FILE          one task over many repositories       --repos PATH [--repos PATH...] [--concurrency N] [--publish]
  policy check [FILE]        validate a policy (file:line:col: message)
  policy schema              print the policy's JSON Schema
  audit <run-id>             print a run's trail (ledger, model calls)  [--repo O/R] [--out DIR | --bucket NAME]
  replay <bucket> <key>      re-drive a dead-lettered worker or publisher step (operators)
                                                                  [--endpoint URL] [--min-idle-minutes N]
  report                     outcomes per repository and installation [--since DATE] [--out DIR | --bucket NAME]
  serve                      the whole App in one process          [--dir DIR] [--port N] [--host H] [--env-file FILE]
  doctor                     check a serve setup, each check ✓/✗   [--env-file FILE] [--dir DIR] [--policy FILE]

options: --ref REF  --out DIR  --policy FILE  --json  --run-id ID
exit codes: 0 ready/completed, 1 failed/blocked, 2 usage, 3 needs approval/budget exceeded, 130 cancelled`;

/** The committer of the agent's commits: DRAFTSMAN_GIT_NAME / DRAFTSMAN_GIT_EMAIL, else draftsman. */
export function gitIdentityOf(env: CliIo['env']): { name: string; email: string } {
  return { name: env.DRAFTSMAN_GIT_NAME ?? 'draftsman', email: env.DRAFTSMAN_GIT_EMAIL ?? 'draftsman@localhost' };
}
