import { z } from 'zod';
import { Exhaustion } from '../budget/budget.js';
import { UPDATE_TYPES } from '../versions/versions.js';
import { CommandResult } from '../verify/command-result.js';

/** The facts a run report states; validated before it is rendered. */
export const Usage = z.strictObject({ used: z.number().int().nonnegative(), limit: z.number().int().nonnegative().optional() });
const Severity = z.enum(['HIGH', 'MEDIUM']);
const Level = z.enum(['LOW', 'MEDIUM', 'HIGH']);

/** One dependency version a bump moved. */
export const DependencyUpdateSchema = z.strictObject({
  package: z.string().min(1),
  from: z.string(),
  to: z.string(),
  updateType: z.enum(UPDATE_TYPES),
});

export const RunReportVerification = z
  .strictObject({
    /** Checks draftsman ran itself (static: parse, scope guard, secret scan, anti-cheat). */
    checks: z.array(z.strictObject({ name: z.string().min(1), status: z.enum(['PASSED', 'FAILED', 'SKIPPED']), detail: z.string().optional() })),
    /** What did not run, and why (build and test commands always land here). */
    notRun: z.array(z.strictObject({ name: z.string().min(1), why: z.string().min(1) })),
    /** What the secret scan found in the added lines; a secret-scan check is never shown as passed while this has entries. */
    secretFindings: z.array(z.strictObject({ rule: z.string().min(1), path: z.string(), line: z.number().int().nonnegative() })).default([]),
    /** The project's own commands draftsman ran on the change (agent.verify), and where. */
    commands: z.array(CommandResult).default([]),
    commandsRanIn: z.string().optional(),
    /** The policy's `agent.build.commands`: what CI should run. */
    ciCommands: z.array(z.string().min(1)),
    /** The policy's `agent.build.defaultVerifier` (e.g. maven, npm). */
    verifier: z.string().optional(),
    /** Real CI results, once the publisher has them. */
    ci: z
      .strictObject({
        state: z.enum(['unavailable', 'pending', 'success', 'failure', 'mixed']),
        commitSha: z.string().optional(),
        checks: z.array(z.strictObject({ name: z.string(), status: z.string(), conclusion: z.string().nullable(), url: z.string().optional() })),
      })
      .optional(),
  })
  .refine((v) => !v.checks.some((c) => v.notRun.some((n) => n.name === c.name)), {
    message: 'a check cannot be both run and not run',
    path: ['notRun'],
  });
export type RunReportVerification = z.infer<typeof RunReportVerification>;

export const RunReport = z.strictObject({
  schemaVersion: z.literal(1),
  runId: z.string().min(1),
  attempt: z.number().int().positive(),
  /** Terminal state of the attempt (COMPLETED, NEEDS_APPROVAL, ...). */
  status: z.string().min(1),
  title: z.string(),
  objective: z.string(),
  mode: z.enum(['draft_pr', 'analysis']).optional(),
  repository: z.string().optional(),
  baseRef: z.string().optional(),
  baseCommitSha: z.string().min(1),
  headCommitSha: z.string().optional(),
  agentBranch: z.string().optional(),
  /** The attempt's `createdAt`, when the caller wants it shown. */
  createdAt: z.string().optional(),
  scope: z.strictObject({
    /** Task scope globs; empty means the whole repository. */
    paths: z.array(z.string()),
    /** What the run deliberately left alone (e.g. "CI configuration", "lockfiles"). */
    untouched: z.array(z.string()).default([]),
  }),
  strategy: z.strictObject({
    engine: z.enum(['recipe', 'llm', 'hybrid', 'none']),
    steps: z.array(z.string()),
    notes: z.array(z.string()).default([]),
  }),
  targets: z.array(
    z.strictObject({
      path: z.string(),
      change: z.string().optional(),
      insertions: z.number().int().nonnegative().optional(),
      deletions: z.number().int().nonnegative().optional(),
      /** What kind of edit changed the file (e.g. "mechanical import change"), said once per risk group. */
      edit: z.string().optional(),
      reasons: z.array(z.string()),
    }),
  ),
  verification: RunReportVerification,
  lockfiles: z.array(z.strictObject({ path: z.string(), command: z.string(), why: z.string().optional() })).default([]),
  /** Files the change moved (a renamed public Java class to the file of its new name). */
  moves: z.array(z.strictObject({ from: z.string(), to: z.string() })).default([]),
  /**
   * The steps read from the issue's words (no task block): the ```` ```agent ```` block that ran,
   * and the requests that did not run, with why.
   */
  understood: z
    .strictObject({
      block: z.string(),
      notDone: z.array(z.strictObject({ text: z.string(), why: z.string() })).default([]),
    })
    .optional(),
  /** Dependency versions the change moved: package, from, to and the kind of update (Renovate's table). */
  dependencyUpdates: z.array(DependencyUpdateSchema).default([]),
  risk: z.strictObject({
    level: Level,
    score: z.number(),
    reasons: z.array(z.string()),
    requiredGate: z.string().optional(),
  }),
  policyVerdicts: z
    .array(z.strictObject({ rule: z.string(), verdict: z.enum(['PASS', 'WARN', 'FAIL', 'APPROVED']), detail: z.string().optional() }))
    .default([]),
  antiCheat: z
    .array(z.strictObject({ rule: z.string(), path: z.string(), line: z.number().int().optional(), snippet: z.string(), severity: Severity }))
    .default([]),
  /** Model rows are present only when a model ran. */
  budget: z.strictObject({
    steps: Usage,
    modelCalls: Usage.optional(),
    toolCalls: Usage.optional(),
    /** Prompt plus completion tokens, when they are not known apart. */
    tokens: Usage.optional(),
    tokensIn: Usage.optional(),
    tokensOut: Usage.optional(),
    /** In micro-dollars; `used` is null when the deployment has no price for the model. */
    cost: z.strictObject({ used: z.number().int().nonnegative().nullable(), limit: z.number().int().nonnegative().optional() }).optional(),
    /** The phases' wall clock added up (each from its start to its checkpoint). */
    wallClockMs: z.number().int().nonnegative().optional(),
    files: Usage,
    /** Absent when the run stopped before the diff review counted them. */
    lines: Usage.optional(),
    /** Model work per phase, for the phases that asked the model. */
    phases: z
      .array(
        z.strictObject({
          phase: z.string().min(1),
          modelCalls: z.number().int().nonnegative(),
          toolCalls: z.number().int().nonnegative(),
          tokensIn: z.number().int().nonnegative(),
          tokensOut: z.number().int().nonnegative(),
          costMicroUsd: z.number().int().nonnegative().nullable(),
          wallClockMs: z.number().int().nonnegative().optional(),
        }),
      )
      .default([]),
    /** What the task spent so far over all its attempts (the trusted spend record), and the price it was charged at. */
    spend: z
      .strictObject({
        calls: z.number().int().nonnegative(),
        tokensIn: z.number().int().nonnegative(),
        tokensOut: z.number().int().nonnegative(),
        costMicroUsd: z.number().int().nonnegative(),
        price: z.strictObject({ model: z.string(), inputPerMTokUsd: z.number(), outputPerMTokUsd: z.number() }).optional(),
      })
      .optional(),
    /** The budget that stopped the run, when one did. */
    exhausted: Exhaustion.extend({ phase: z.string().optional(), segment: z.string().optional() }).optional(),
  }),
  phases: z.array(z.strictObject({ name: z.string(), state: z.enum(['pending', 'running', 'done', 'skipped', 'failed', 'blocked']) })).default([]),
  /** Touched modules, drawn when there are no phases to draw. */
  modules: z.array(z.strictObject({ name: z.string(), files: z.number().int().nonnegative() })).default([]),
  artifacts: z.array(z.strictObject({ name: z.string(), url: z.string() })).default([]),
  /** What the recipes left for a human (occurrences left in history files, a requirement to add...), shown once each. */
  notes: z.array(z.string()).default([]),
  /** Plan revisions the model made, with its reason and the files each added or dropped. */
  planRevisions: z.array(z.strictObject({ reason: z.string(), added: z.array(z.string()), dropped: z.array(z.string()) })).default([]),
  /**
   * The model's own account of the change: the final answer of each model segment that finished,
   * as it gave it (redacted), and the sentences of it that say what it did not verify or could not
   * do. Untrusted text: shown framed as the model's words, bounded, defused.
   */
  modelAccount: z.array(z.strictObject({ segment: z.string(), text: z.string(), caveats: z.array(z.string()).default([]) })).default([]),
  /** How to run the tests of the change: the repository map's commands for the modules it touched. */
  testCommands: z.array(z.strictObject({ module: z.string(), cwd: z.string(), run: z.string(), focused: z.boolean() })).default([]),
  /** Things the reviewer must know first (base moved and policy is warn, partial result...). */
  warnings: z.array(z.string()).default([]),
});
export type RunReport = z.infer<typeof RunReport>;
export type RunReportInput = z.input<typeof RunReport>;
