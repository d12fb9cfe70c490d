import { z } from 'zod';
import { DEFAULT_LOCKFILE_PATTERNS } from './lockfiles.js';
import { AgentRules } from './agent-rules.js';
import { AgentOn, AgentSchedules } from './agent-schedules.js';
import { RepoGlob } from './repo-glob.js';

/** The file name the App and the CLI look for on the default branch. */
export const POLICY_FILE_NAME = '.agent-policy.yaml';

/** Larger files are refused before parsing: a policy is a page of settings, not data. */
export const MAX_POLICY_FILE_BYTES = 1024 * 1024;

/** GitHub's repository roles, weakest first; compared with the collaborator API's `role_name`. */
export const PERMISSION_LEVELS = ['read', 'triage', 'write', 'maintain', 'admin'] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

/**
 * Forbidden whatever the policy's own `forbiddenPaths` says: a run must never edit the policy
 * that governs it, and the App has no `workflows` permission. `PathRules` adds these itself.
 */
export const ALWAYS_FORBIDDEN_PATHS = ['.github/workflows/**', POLICY_FILE_NAME] as const;

export const DEFAULT_FORBIDDEN_PATHS = [...ALWAYS_FORBIDDEN_PATHS];

/** Every lockfile a package manager writes; edited only by that package manager. */
export { DEFAULT_LOCKFILE_PATTERNS };

export const DEFAULT_GENERATED_PATTERNS = [
  '**/generated/**',
  '**/__generated__/**',
  '**/generated-sources/**',
  '**/dist/**',
  '**/*.min.js',
  '**/*.min.css',
  '**/*.pb.go',
  '**/*_pb2.py',
  '**/*_pb2_grpc.py',
  '**/*_generated.*',
  '**/*.generated.*',
];

/*
 * The lists below are not policy keys: they name conventions (where tests, vendored code, history
 * and CI live) that the repository map, target selection, risk score and anti-cheat all share.
 */

/** Third-party code checked in or installed into the tree: never source of this repository. */
export const DEFAULT_VENDORED_PATTERNS = ['**/node_modules/**', '**/vendor/**', '**/third_party/**', '**/bower_components/**', '**/.venv/**', '**/venv/**'];

/**
 * Directories of test inputs: a manifest there describes a fixture (pnpm keeps hundreds of
 * fixture packages, prometheus a 240 KB golden OpenAPI file), not a module of the repository,
 * and the go tool itself skips `testdata`. Everything under them is test material.
 */
export const FIXTURE_DIR_NAMES = ['fixtures', '__fixtures__', 'fixture', 'test-fixtures', 'testdata', 'test-data'] as const;

/** Tests and their fixtures by the usual conventions of Java/Kotlin, JS/TS, Python, Go, Ruby, Swift and .NET. */
export const DEFAULT_TEST_PATTERNS = [
  '**/test/**',
  '**/tests/**',
  '**/Tests/**',
  '**/__tests__/**',
  '**/spec/**',
  '**/specs/**',
  '**/testing/**',
  '**/e2e/**',
  '**/src/it/**',
  `**/{${FIXTURE_DIR_NAMES.join(',')}}/**`,
  '**/*.{test,spec,e2e}.{js,jsx,ts,tsx,mjs,cjs,mts,cts}',
  '**/*{Test,Tests,IT,TestCase,Spec}.{java,kt,kts,scala,groovy}',
  '**/*{Test,Tests}.cs',
  '**/*_test.go',
  '**/test_*.py',
  '**/*_test.py',
  '**/{test,tests,conftest}.py',
  '**/*_spec.rb',
];

/** Release history: past entries name old symbols on purpose, so recipes leave them alone. */
export const DEFAULT_HISTORY_PATTERNS = [
  '**/{CHANGELOG,Changelog,changelog,CHANGES,HISTORY,NEWS,RELEASE_NOTES,RELEASE-NOTES,RELEASENOTES}',
  '**/{CHANGELOG,Changelog,changelog,CHANGES,Changes,HISTORY,History,history,NEWS,RELEASE_NOTES,RELEASE-NOTES,RELEASENOTES,release-notes,release_notes}.{md,markdown,rst,txt,adoc}',
  '**/{CHANGELOG,HISTORY,RELEASE_NOTES}-*',
  '**/{release-notes,changelogs,changelog.d}/**',
];

/** CI configuration: a change here changes what "green" means. */
export const DEFAULT_CI_PATTERNS = [
  '.github/workflows/**',
  '.github/actions/**',
  '.gitlab-ci.{yml,yaml}',
  '**/Jenkinsfile',
  '**/Jenkinsfile.*',
  '.circleci/**',
  '.buildkite/**',
  '{azure-pipelines,bitbucket-pipelines,.travis}.{yml,yaml}',
];

/**
 * Files CI runs when it builds a pushed branch, with the repository's secrets, before anyone
 * reviews: composite actions, build wrappers and their properties, make and task files, test
 * bootstraps, hook and package-manager configuration, submodules. A change to one is HIGH risk
 * (so it waits for an approval), decided again by the publisher. Build manifests (`pom.xml`,
 * `build.gradle`, `package.json` dependencies) are weighed as manifests, not here.
 */
export const DEFAULT_CI_EXECUTED_PATTERNS = [
  ...DEFAULT_CI_PATTERNS,
  '**/action.{yml,yaml}',
  '**/{gradlew,gradlew.bat,mvnw,mvnw.cmd}',
  '**/gradle/wrapper/**',
  '**/.mvn/**',
  '**/{Makefile,makefile,GNUmakefile,justfile,Justfile,Taskfile.yml,Taskfile.yaml,Rakefile}',
  '**/*.mk',
  '**/{conftest.py,noxfile.py,tox.ini}',
  '**/.pre-commit-config.{yml,yaml}',
  '**/{.npmrc,.yarnrc,.yarnrc.yml,.pnpmfile.cjs,.pypirc}',
  '.gitmodules',
  '**/.husky/**',
];

/** Infrastructure and deployment definitions. */
export const DEFAULT_INFRA_PATTERNS = [
  '{infra,infrastructure,terraform,deploy,deployment,k8s,kubernetes,helm,charts,ops}/**',
  '**/*.{tf,tfvars}',
  '**/{Dockerfile,docker-compose.yml,docker-compose.yaml}',
  '**/Dockerfile.*',
];

const globs = (what: string) => z.array(RepoGlob).max(1000).describe(what);
const count = (max: number) => z.number().int().positive().max(max);
const editRule = (what: string) =>
  z
    .strictObject({
      default: z
        .enum(['blocked', 'allowed'])
        .default('blocked')
        .describe(`Whether ${what} may be edited. Recipes and the model never edit blocked files; the PR body says which command refreshes them.`),
    })
    .prefault({})
    .describe(`Edit rule for ${what}.`);

/** The lowest risk level that needs an approval; `never` leaves approval to paths and scope. */
export const ApprovalMinRisk = z.enum(['HIGH', 'MEDIUM', 'never']);
export type ApprovalMinRisk = z.infer<typeof ApprovalMinRisk>;

export const RiskRule = z.strictObject({
  glob: RepoGlob.describe('Paths this rule applies to.'),
  level: z
    .enum(['LOW', 'MEDIUM', 'HIGH'])
    .describe('Risk of a change under these paths; a level at or above `agent.approval.minRisk` (HIGH by default) stops the run for approval.'),
  reason: z.string().min(1).max(500).describe('Shown to reviewers and in approval requests.'),
});
export type RiskRule = z.infer<typeof RiskRule>;

/**
 * `.agent-policy.yaml`, version 1: how the App may act in one repository. Strict (unknown keys
 * are errors) because a human writes it and a typo must not silently widen what the App may do.
 * Every key has a documented default; a missing file means all defaults.
 */
export const AgentPolicy = z
  .strictObject({
    version: z.literal(1).describe('Version of this file format. Required; must be 1.'),
    agent: z
      .strictObject({
        enabled: z.boolean().default(true).describe('Kill switch: false, the App ignores every trigger here and a CLI run ends BLOCKED (AGENT_DISABLED).'),
        allowedModes: z
          .array(z.enum(['analysis', 'draft_pr']))
          .default(['analysis', 'draft_pr'])
          .describe('Modes a run may use: analysis (report only) and draft_pr (open a draft pull request).'),
        requireApprovalFor: globs('A change touching any of these paths (matched ignoring case) stops in NEEDS_APPROVAL until a maintainer approves.').default(
          [],
        ),
        forbiddenPaths: globs(
          'Paths never edited, checked at stage, commit and publish, matched ignoring case (`secrets/**` also forbids `Secrets/prod.yml`). `.github/workflows/**` and `.agent-policy.yaml` are forbidden even when omitted here (the App has no workflows permission, and a run never edits its own policy).',
        ).default(DEFAULT_FORBIDDEN_PATHS),
        allowedPaths: globs('When set, only these paths may be edited; absent means the whole repository.').optional(),
        maxChangedFiles: count(10_000).default(30).describe('Most files one run may change.'),
        publishPartial: z
          .boolean()
          .default(false)
          .describe(
            'Publish a change whose static checks still fail after repair (a file that does not parse, a name left unresolved): the PR title and the top of its body say what is broken. A secret or a high anti-cheat finding never publishes.',
          ),
        requirePlanApproval: z
          .boolean()
          .default(false)
          .describe(
            "Stop every run after planning, before any change is made, in NEEDS_APPROVAL with reason PLAN_APPROVAL: the plan (targets, segments, the files it expects to change, the estimated spend) is written to plan.json and shown on the progress comment. `/agent approve` approves that plan (by its digest) and the run goes on, held to the plan's files: a change to any other file stops again for a new approval. `/agent plan` asks for the same on one issue.",
          ),
        readyForReview: z
          .enum(['never', 'ci-green'])
          .default('never')
          .describe(
            'When the draft pull request becomes ready for review: never (a maintainer decides), or ci-green (once every CI check on its head has passed, unless the change was published partial or with failing checks).',
          ),
        maxDiffLines: count(1_000_000).default(1500).describe('Most changed lines (added + removed) one run may produce.'),
        inferSteps: z
          .enum(['run', 'suggest', 'off'])
          .default('run')
          .describe(
            'An issue without a task block, written in prose ("Bump lodash from 4.17.20 to 4.17.21", "Rename `Foo` to `Bar`"): run (read it into recipe steps and run the steps the repository confirms, without a model; text by someone without write access waits for approval), suggest (never run them: the analysis offers the block), or off (read nothing: the model or an analysis, as without this setting).',
          ),
        build: z
          .strictObject({
            commands: z
              .array(z.string().min(1).max(1000))
              .max(50)
              .default([])
              .describe(
                'Build and test commands (shell lines run from the repository root). Verification runs them on the change when `agent.verify.runner` is not none; the PR body shows them for CI either way. Without any, verification runs the commands the repository map infers for the modules the change touches.',
              ),
            defaultVerifier: z.string().min(1).max(100).optional().describe('Name of the build tool shown next to the commands (e.g. maven, npm).'),
          })
          .prefault({})
          .describe('Build and test commands: run by verification (agent.verify) and shown for CI.'),
        verify: z
          .strictObject({
            runner: z
              .enum(['none', 'local', 'codebuild'])
              .default('none')
              .describe(
                'Where the project commands run before review: none (static checks only), local (a sandbox on the machine running the CLI or `serve`; refused where no sandbox is available), codebuild (the deployed App: an AWS CodeBuild build without network access, started by the verifier function; with `network: true` nothing runs there and the report says so, as no project with network access is deployed).',
              ),
            required: z
              .boolean()
              .default(true)
              .describe('A change whose commands fail is not published (true), or is published with "checks failing" at the top of its body (false).'),
            setup: z
              .array(z.string().min(1).max(1000))
              .max(20)
              .default([])
              .describe('Commands run before the checks in the same checkout, such as `npm ci` (they need `network: true` to reach a registry).'),
            timeoutSeconds: count(3600).default(600).describe('Wall time of one command.'),
            budgetSeconds: count(7200).default(1200).describe('Wall time of all commands of one verification; commands past it are not started.'),
            maxOutputBytes: count(64 * 1024 * 1024)
              .min(1024)
              .default(4 * 1024 * 1024)
              .describe('Output of one command past which it is stopped.'),
            memoryMb: count(65536)
              .min(64)
              .optional()
              .describe(
                'Address-space limit per process of a command (RLIMIT_AS), when set. Runtimes that reserve large address ranges at start (Node, the JVM) need several GiB.',
              ),
            network: z.boolean().default(false).describe('Whether commands may reach the network (package registries); off by default.'),
          })
          .prefault({})
          .describe("Running the project's own build and tests on the change before review."),
        rules: AgentRules,
        schedules: AgentSchedules,
        on: AgentOn,
        riskRules: z.array(RiskRule).max(1000).default([]).describe('Extra risk levels by path; the highest matching level wins.'),
        approval: z
          .strictObject({
            minRisk: ApprovalMinRisk.default('HIGH').describe(
              'Lowest risk level of a change that stops in NEEDS_APPROVAL before a draft PR is opened: HIGH (default), MEDIUM, or never (risk alone never needs an approval; `requireApprovalFor` and out-of-scope paths still do). The risk level comes from the change-risk score raised by `riskRules`; a change to a file CI executes when it builds the pushed branch (CI configuration, composite actions, build wrappers such as `gradlew`/`mvnw` and `gradle/wrapper/**`, `.mvn/**`, Makefiles, `conftest.py`, `tox.ini`, `.pre-commit-config.yaml`, `.npmrc`, `.gitmodules`) is HIGH on its own.',
            ),
          })
          .prefault({})
          .describe('When the risk of a change needs a maintainer approval.'),
        ciRepair: z
          .strictObject({
            maxAttempts: z
              .number()
              .int()
              .min(0)
              .max(5)
              .default(1)
              .describe(
                "Most repair attempts one agent PR gets when its head's checks fail (each for a different head commit, never twice for the same one); 0 turns repair from CI off. The attempt reads the failing checks' output and annotations as untrusted data.",
              ),
          })
          .prefault({})
          .describe('Repairing an agent PR whose CI failed.'),
        budgets: z
          .strictObject({
            maxCostUsd: z
              .number()
              .positive()
              .max(100_000)
              .optional()
              .describe(
                "Most one task may spend on model calls, in US dollars, over all the attempts of its run (a retry, an approval, a revision and a CI repair add to the same spend), priced by the deployment's price table (MODEL_PRICES). Each call reserves its worst case (prompt estimate plus completion cap) in the run's spend record before it is sent, so parallel calls cannot pass the cap together. A run whose model has no price in the table is refused before its first model call. Migration: this capped each attempt on its own before; call and token budgets still do.",
              ),
            monthlyCostUsd: z
              .number()
              .positive()
              .max(10_000_000)
              .optional()
              .describe(
                'Most all runs of this repository may spend on model calls in one calendar month (UTC), in US dollars, reserved and settled like `maxCostUsd`. The deployment may also cap each installation (INSTALLATION_MONTHLY_COST_USD).',
              ),
            maxModelCalls: z
              .number()
              .int()
              .nonnegative()
              .max(10_000)
              .default(40)
              .describe("Most model calls one attempt of a run may make; a task's `budgets.maxModelCalls` can only lower it. 0 means recipes only."),
            maxToolCalls: count(100_000).optional().describe('Most tool calls the model may make in one attempt (each phase has its own limit too).'),
            maxInputTokens: count(1_000_000_000).optional().describe('Most prompt (input) tokens one attempt may send.'),
            maxOutputTokens: count(1_000_000_000).optional().describe('Most completion (output) tokens one attempt may receive.'),
          })
          .prefault({})
          .describe(
            'What the model work of one run may use: `maxCostUsd` and `monthlyCostUsd` across attempts and runs, the others per attempt. On exhaustion the run stops with a partial report naming the dimension (tokens_in, tokens_out, model_calls, tool_calls, wall_clock, cost_usd), its limit and what was used; its checkpoint is kept.',
          ),
      })
      .prefault({})
      .describe('What runs may do.'),
    ingestion: z
      .strictObject({
        submodules: z
          .enum(['opaque', 'block'])
          .default('opaque')
          .describe(
            'Git submodules: opaque (default) ingests the repository with each gitlink kept as it is (never fetched, never edited, reported) and refuses only a task whose `paths` reach into a submodule; block refuses any repository with submodules.',
          ),
        allowSubmodules: z.boolean().optional().meta({
          deprecated: true,
          description:
            'Deprecated (use `submodules`), still read so existing policy files keep working: false means `submodules: block`, true means `opaque`. When either setting says block, submodules are blocked. `policy check` warns and shows what to write instead.',
        }),
        allowLfs: z.boolean().default(false).describe('Whether a repository using Git LFS may be ingested (LFS objects are never fetched).'),
        maxRepoSizeMb: count(100_000).default(500).describe('Repositories larger than this (as reported by the provider, and as fetched) are refused.'),
        maxFileSizeMb: count(1000).default(5).describe('Files larger than this are never read or edited.'),
        maxFileCount: count(10_000_000).default(100_000).describe('Repositories with more files than this are refused.'),
        maxPathDepth: count(1000).default(64).describe('Paths with more segments than this are refused at ingestion.'),
        maxPathLength: count(65_535).default(1024).describe('Paths longer than this many bytes are refused at ingestion.'),
      })
      .prefault({})
      .describe('Limits applied while fetching the repository.'),
    editRules: z
      .strictObject({
        generatedFiles: editRule('generated files'),
        lockfiles: editRule('lockfiles'),
        historyFiles: z
          .strictObject({
            default: z
              .enum(['left', 'edited'])
              .default('left')
              .describe(
                "Whether recipes rewrite release history (changelogs, release notes): left alone by default unless the task's paths name the file; the PR body counts the occurrences left.",
              ),
          })
          .prefault({})
          .describe('Edit rule for release history files.'),
        generatedPatterns: globs('Paths treated as generated files.').default(DEFAULT_GENERATED_PATTERNS),
        lockfilePatterns: globs('Paths treated as lockfiles.').default(DEFAULT_LOCKFILE_PATTERNS),
      })
      .prefault({})
      .describe('Files runs should not edit by hand.'),
    triggers: z
      .strictObject({
        label: z.string().min(1).max(50).default('agent:run').describe('Issue label that starts a run.'),
        commandPrefix: z
          .string()
          .regex(/^\/[A-Za-z0-9_-]+$/, 'must be a slash followed by letters, digits, _ or -')
          .default('/agent')
          .describe('Prefix of slash commands in issue comments (`/agent run`).'),
        minPermission: z
          .enum(PERMISSION_LEVELS)
          .default('write')
          .describe("Least repository role (the API's role_name; read < triage < write < maintain < admin) allowed to start, approve, cancel or retry."),
      })
      .prefault({})
      .describe('How runs are started.'),
    limits: z
      .strictObject({
        runsPerHour: count(1000).default(10).describe('Most runs started per repository per clock hour; more wait in the run queue, in order.'),
        maxOpenPullRequests: count(100)
          .default(5)
          .describe('While this many draft PRs by the App are open, new runs wait in the run queue and start, in order, when one is merged or closed.'),
      })
      .prefault({})
      .describe('Limits per repository: a run beyond them waits in the run queue, never refused.'),
    baseMovementPolicy: z
      .enum(['rerun', 'warn', 'fail'])
      .default('rerun')
      .describe('When the base branch moved before publishing: rerun on the new base, warn (publish on the old base and say so), or fail.'),
  })
  .meta({ title: 'draftsman .agent-policy.yaml', description: 'Per-repository policy for the draftsman GitHub App (version 1).' });
export type AgentPolicy = z.infer<typeof AgentPolicy>;

/** The policy in force when the repository has no `.agent-policy.yaml`: every documented default. */
export function defaultPolicy(): AgentPolicy {
  return AgentPolicy.parse({ version: 1 });
}

/** True when a sender's `role_name` is at least `min`; unknown (custom) roles never are. */
export function meetsPermission(roleName: string, min: PermissionLevel): boolean {
  const have = PERMISSION_LEVELS.indexOf(roleName.toLowerCase() as PermissionLevel);
  return have >= 0 && have >= PERMISSION_LEVELS.indexOf(min);
}

/** The policy's per-file size limit in bytes: larger files are never read, searched or edited. */
export function maxEditableBytes(policy: AgentPolicy): number {
  return policy.ingestion.maxFileSizeMb * 1024 * 1024;
}
