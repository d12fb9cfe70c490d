import packageJson from '../../../package.json' with { type: 'json' };
import { USAGE } from './cli-io.js';

/** The version `draftsman --version` prints: package.json's, bundled into the CLI at build time. */
export const VERSION: string = packageJson.version;

const COMMON = `common options:
  --ref REF        the base: a branch, tag or commit (default: the repository's HEAD)
  --out DIR        the artifact root (default: \${XDG_STATE_HOME:-~/.local/state}/draftsman)
  --policy FILE    the policy (default: .agent-policy.yaml of the base commit)
  --json           one JSON object as the last stdout line, with everything found; no progress
  --run-id ID      name the run (default: derived from the repository, base, task and scope)
  --verbose        the run's log lines on stderr (else they go to <out>/draftsman.log)
  -h, --help       this text`;

const EXIT = 'exit codes: 0 ready/completed, 1 failed/blocked, 2 usage, 3 needs approval/budget exceeded, 130 cancelled';

/** Each command's `--help` text: what it does, its arguments and its options. */
export const COMMAND_HELP: Record<string, string> = {
  ingest: `usage: draftsman ingest <repo> [--paths a,b] [options]

Pins the base commit, fetches its objects and scans the tree against the policy; prints the
warnings (with the paths they concern). <repo> is a local path or an http(s) URL (a token comes
from DRAFTSMAN_GIT_TOKEN).

  --paths a,b      read only these paths (a directory means everything under it)

${COMMON}
${EXIT}`,
  map: `usage: draftsman map <repo> [options]

Ingestion and the repository map; prints the modules (path, build system, language), the
build systems and the languages found.

${COMMON}
${EXIT}`,
  targets: `usage: draftsman targets <repo> (--task TEXT | --task-file FILE) [--paths a,b] [options]

Ingestion, the repository map and target selection for the task; prints the files selected,
ranked, with the reasons each was chosen.

  --task TEXT        the task (an issue's text, with or without an \`\`\`agent block)
  --task-file FILE   the task, from a file
  --paths a,b        read only these paths

${COMMON}
${EXIT}`,
  run: `usage: draftsman run <repo> (--task TEXT | --task-file FILE) [options]

The whole pipeline; prints the phases as they end, then the pull request body (or the
analysis report).

  --task TEXT        the task (an issue's text, with or without an \`\`\`agent block)
  --task-file FILE   the task, from a file
  --paths a,b        read only these paths
  --publish          write the commit and its branch into the source repository (local paths only)
  --approve          the next attempt passes the approval gate the last one stopped at (after a
                     plan gate, PLAN_APPROVAL: the change is made, held to plan.json's files)
  --mode MODE        analysis (a report only) or draft_pr

${COMMON}
${EXIT}`,
  campaign: `usage: draftsman campaign check FILE [--json]
       draftsman campaign run FILE --repos PATH [--repos PATH...] [--concurrency N] [--publish] [--out DIR] [--json]

One task (campaign.yaml: an \`\`\`agent block, a title, a description) over many repositories,
each an ordinary run under its own policy (docs/campaigns.md).

  check            validate the spec; problems as file:line:col: message
  run              run the repositories (a local path or a URL per --repos); one line each as it
                   ends, then a table: changed, unchanged, declined by its policy, or failed.
                   With the spec's repositories, a --repos (named owner/name by its origin remote
                   or URL, else local/<directory>) runs when list names it or it passes
                   select.names and select.hasFile on its HEAD commit (a URL's hasFile is not
                   evaluated); the others are unselected, not run. topics, language, archived and
                   forks are GitHub metadata the CLI cannot evaluate: it says so once and takes them
                   as met
  --concurrency N  repositories at once (default the spec's pace.concurrency)
  --publish        write each changed repository's agent branch (local paths; publish: draft)

exit codes: 0 valid / no repository failed, 1 invalid / some failed, 2 usage`,
  policy: `usage: draftsman policy check [FILE] [--json]
       draftsman policy schema

  check    validate a policy (default .agent-policy.yaml); problems as file:line:col: message
  schema   print the policy's JSON Schema

exit codes: 0 valid, 1 invalid, 2 usage`,
  replay: `usage: draftsman replay <bucket> <key> [--endpoint URL] [--region R] [--min-idle-minutes N] [--json]

Operators: re-drive a dead-lettered worker or publisher step of the deployed App from its
stored input, with your AWS credentials (docs/operations.md).

exit codes: 0 re-driven, 1 refused (nothing written), 2 usage`,
  report: `usage: draftsman report [--since DATE] [--json] [--out DIR | --bucket NAME [--endpoint URL] [--region R]]

Outcomes of the runs, per repository, per installation and in all: runs started, published,
failed by reason; pull requests merged, closed unmerged, open; the median time from the request
to the merge; model spend, and per merged pull request (docs/operations.md, "Outcomes").

  --since DATE     only runs asked for since then (YYYY-MM-DD, UTC, or an ISO 8601 instant)
  --out DIR        the CLI's artifact root (default: \${XDG_STATE_HOME:-~/.local/state}/draftsman)
  --bucket NAME    the App's bucket instead, with your AWS credentials (AWS_ENDPOINT_URL_S3 or
                   --endpoint for an S3-compatible server)
  --json           the same figures as one JSON object

exit codes: 0 reported, 2 usage`,
  audit: `usage: draftsman audit <run-id> [--repo OWNER/REPO] [--out DIR | --bucket NAME] [--json]

Prints the trail of every attempt of a run: its ledger events and its model calls with what
each cost. The trail is create-only (docs/architecture.md); a commit names it in its Run-trail
trailer.

  --repo OWNER/REPO  look in this repository's trails only (faster on a bucket)
  --out DIR          the CLI's artifact root (default: \${XDG_STATE_HOME:-~/.local/state}/draftsman)
  --bucket NAME      the deployment's bucket, with your AWS credentials [--endpoint URL] [--region R]

exit codes: 0 trail found, 1 none, 2 usage`,
  serve: `usage: draftsman serve [--dir DIR] [--port N] [--host H] [--env-file FILE]
       draftsman serve --sandbox [--dir DIR] [--port N] [--host H]

The whole GitHub App in one process, until Ctrl-C (README, "Trying the App before deploying").

  --dir DIR          where runs and state are kept (default .draftsman; with --sandbox a temporary folder)
  --port N           the webhook port (with --sandbox: the sandbox page's port)
  --host H           the address to listen on
  --env-file FILE    settings (default .env)
  --sandbox          no GitHub needed: a local GitHub stand-in with a sandbox repository and a page
                     that opens and labels issues (from a checkout with npm ci done)`,
  doctor: `usage: draftsman doctor [--env-file FILE] [--dir DIR] [--policy FILE] [--bucket NAME [--endpoint URL] [--region R]] [--json]
       draftsman doctor --stage NAME [--service NAME] [--webhook-url URL] [--region R] [--policy FILE] [--json]

Checks a serve setup as serve and the App use it, each check ✓ or ✗ with the fix: the
settings, the App's credentials, its webhook URL against WEBHOOK_PATH (or the proxy), its
permissions and events against app.yml, the model endpoint (one short call), the store
directory, a deployment's bucket (--bucket, with your AWS credentials, as replay reaches it),
and a policy (--policy FILE, else .agent-policy.yaml here when there is one).

With --stage, checks a deployment instead (service draftsman unless --service), with your AWS
credentials: the functions' configuration (lambda:GetFunctionConfiguration), the App key,
webhook secret and model key in SSM, the App's credentials, webhook URL (the stack's route, or
--webhook-url exactly), permissions and events, the model as model-call builds it, the bucket.

exit codes: 0 every check passed, 1 some failed, 2 usage`,
};

/** `draftsman --help`: the commands, then where each command's own help is. */
export const MAIN_HELP = `${USAGE}

\`draftsman <command> --help\` describes a command; \`draftsman --version\` prints the version.`;

/** True when the arguments ask for help (before any \`--\` that ends the options). */
export function asksForHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}
