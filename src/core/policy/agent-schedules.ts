import { Cron } from 'croner';
import { z } from 'zod';
import { userRegexField } from './agent-rules.js';
import { RepoGlob } from './repo-glob.js';

/** Most schedules one repository may keep: each is a schedule in EventBridge Scheduler (or `serve`). */
export const MAX_AGENT_SCHEDULES = 10;

/** A schedule fires at most once in this many minutes (one run an hour each). */
export const MIN_SCHEDULE_GAP_MINUTES = 60;

/** Names cron fields may use beside numbers: months and weekdays (EventBridge reads the same three-letter names). */
const CRON_FIELD = /^(?:[0-9*,/-]|JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT)+$/i;

/** A fixed start for the spacing check: the check looks at the pattern, not at today. */
const SPACING_FROM = new Date(Date.UTC(2025, 0, 1));

/**
 * Why a cron expression is refused, or undefined: exactly five fields (minute hour day-of-month
 * month day-of-week, UTC) that croner accepts, no field syntax EventBridge Scheduler would read
 * differently, day-of-month and day-of-week not both restricted (POSIX cron ORs them, EventBridge
 * refuses the pair), and never twice within an hour. With two or more minute values every hour
 * that fires fires twice, so the first few runs from any start show it.
 */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return `expected 5 fields (minute hour day-of-month month day-of-week), found ${fields.length}`;
  const bad = fields.find((f) => !CRON_FIELD.test(f));
  if (bad !== undefined) return `field "${bad}" uses syntax outside numbers, *, ranges, lists, steps and month or weekday names`;
  if (fields[2] !== '*' && fields[4] !== '*') return 'restrict day-of-month or day-of-week, not both';
  let runs: Date[];
  try {
    runs = new Cron(expression, { timezone: 'UTC', mode: '5-part', paused: true }).nextRuns(4, SPACING_FROM);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (runs.length === 0) return 'the expression never fires';
  for (let i = 1; i < runs.length; i++) {
    if (runs[i].getTime() - runs[i - 1].getTime() < MIN_SCHEDULE_GAP_MINUTES * 60_000) return 'fires more than once an hour; a schedule runs at most hourly';
  }
  return undefined;
}

/**
 * The same expression as EventBridge Scheduler writes it: `cron(m h dom mon dow year)`, one of
 * day-of-month and day-of-week `?`, weekdays by name (POSIX counts Sunday as 0 or 7, EventBridge
 * as 1). Only expressions `cronProblem` accepts are given here.
 */
export function eventBridgeCron(expression: string): string {
  const [minute, hour, dom, month, dow] = expression.trim().split(/\s+/);
  const names = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'];
  // A number after `/` is a step, not a weekday.
  const weekdays = dow.replace(/(^|[^/0-9])([0-7])(?![0-9])/g, (_m, before: string, day: string) => `${before}${names[Number(day)]}`);
  // EventBridge writes a step from a start (`0/15`), not from `*`.
  const from = (field: string, start: number) => field.replace(/\*\//g, `${start}/`);
  const [m, h, d, mo, w] = [from(minute, 0), from(hour, 0), from(dom, 1), from(month, 1), from(weekdays, 1)];
  return dow === '*' ? `cron(${m} ${h} ${d} ${mo} ? *)` : `cron(${m} ${h} ? ${mo} ${w} *)`;
}

const CronExpression = z
  .string()
  .min(9)
  .max(100)
  .superRefine((value, ctx) => {
    const problem = cronProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const AgentSchedule = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,29}$/, 'lower-case letters, digits and dashes, at most 30')
      .describe('The schedule: names it in EventBridge Scheduler, its tracking issue and its runs. Renaming an entry replaces its schedule.'),
    cron: CronExpression.describe(
      'When it fires: five cron fields (minute hour day-of-month month day-of-week), in UTC, at most once an hour; day-of-month and day-of-week are not both restricted.',
    ),
    taskFile: RepoGlob.optional().describe(
      'A file on the default branch whose text is the task (as an issue body: prose and an `agent` block), read when the schedule fires.',
    ),
    steps: z
      .array(z.looseObject({ recipe: z.string().min(1).max(100) }))
      .min(1)
      .max(50)
      .optional()
      .describe('Recipe steps (as in an `agent` block) the run applies; checked as a task block when the schedule fires.'),
    mode: z.enum(['draft_pr', 'analysis']).default('draft_pr').describe('draft_pr (open a draft pull request) or analysis (report only).'),
    issue: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('The issue each run reports on; absent, the App keeps one tracking issue for this schedule (opened once).'),
  })
  .superRefine((entry, ctx) => {
    if ((entry.taskFile === undefined) === (entry.steps === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['steps'], message: 'give either taskFile or steps' });
    }
  });
export type AgentSchedule = z.infer<typeof AgentSchedule>;

export const AgentSchedules = z
  .array(AgentSchedule)
  .max(MAX_AGENT_SCHEDULES)
  .default([])
  .superRefine((entries, ctx) => {
    const seen = new Set<string>();
    for (const [i, entry] of entries.entries()) {
      if (seen.has(entry.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `the name "${entry.name}" is used twice` });
      seen.add(entry.name);
    }
  })
  .describe(
    'Runs started on a schedule (Amazon EventBridge Scheduler in the deployed App, an in-process scheduler in `serve`), synchronised when this file changes on the default branch, and removed when the App is uninstalled or the repository is taken out of its installation. Each run is an ordinary run under this policy.',
  );

export const AgentOn = z
  .strictObject({
    issueOpened: z
      .strictObject({
        labels: z
          .array(z.string().min(1).max(50))
          .min(1)
          .max(20)
          .optional()
          .describe('The opened issue carries one of these labels (issue forms set labels for anyone, so the author is checked too).'),
        titlePattern: userRegexField().optional().describe('The title matches this regular expression (RE2 syntax, linear time).'),
      })
      .refine((o) => o.labels !== undefined || o.titlePattern !== undefined, { message: 'give labels, titlePattern or both' })
      .optional()
      .describe('An opened issue starts a run when it matches every filter given and its author has at least write permission (and `triggers.minPermission`).'),
    checkSuiteFailed: z
      .strictObject({
        issue: z.number().int().positive().optional().describe('Where the comment goes; absent, one tracking issue the App keeps for the default branch.'),
      })
      .optional()
      .describe(
        "A failing check suite on the default branch gets one analysis comment (the failing checks, their conclusions and links), never a change; the checks' text is data.",
      ),
  })
  .prefault({})
  .describe('Runs and comments started by repository events besides the trigger label and commands.');
export type AgentOn = z.infer<typeof AgentOn>;

/** A policy with schedules and events, shown in docs/policy-reference.md and checked to parse by the tests. */
export const AGENT_SCHEDULES_EXAMPLE = `version: 1
agent:
  schedules:
    - name: weekly-deps
      cron: '0 6 * * 1'
      steps:
        - recipe: bump-dependency
          package: lodash
          to: 4.17.21
      issue: 12
    - name: nightly-report
      cron: '30 2 * * *'
      taskFile: .github/agent/nightly.md
      mode: analysis
  on:
    issueOpened:
      labels: ['agent:auto']
      titlePattern: '^\\[bump\\] '
    checkSuiteFailed: {}
`;

/** The section of docs/policy-reference.md about `agent.schedules` and `agent.on`. */
export function agentSchedulesReference(): string[] {
  return [
    '## Runs on schedules and events (`agent.schedules`, `agent.on`)',
    '',
    'Each entry of `agent.schedules` is one schedule: five cron fields in UTC that fire at most once',
    'an hour, and the task as recipe `steps` or a `taskFile` on the default branch. At most 10 per',
    'repository. When `.agent-policy.yaml` changes on the default branch the App creates, changes or',
    "deletes the repository's schedules to match (Amazon EventBridge Scheduler, one schedule per entry,",
    'named `i<installation>-r<repository>-<name>`); uninstalling the App, or taking the repository out',
    'of its installation, removes them. When one fires,',
    'an ordinary run starts under the policy as it is then (limits, lock and modes apply), reporting',
    'on `issue`, or on one tracking issue the App opens once for the schedule; while that issue is',
    'closed, firings start nothing. A firing is keyed by the entry and the hour it was due, so a',
    'repeated delivery is the same run. `serve` fires the same schedules from an in-process scheduler',
    '(the same cron library), kept in its store across restarts.',
    '',
    '`agent.on.issueOpened` starts a run on a newly opened issue that carries one of `labels` and whose',
    'title matches `titlePattern` (RE2, linear time), only when its author has write permission:',
    'issue forms set labels for anyone. `agent.on.checkSuiteFailed` answers a failing check suite on',
    'the default branch with one comment naming the failing checks; it never starts a change, and',
    "the checks' names and text are shown as data.",
    '',
    '```yaml',
    ...AGENT_SCHEDULES_EXAMPLE.trimEnd().split('\n'),
    '```',
    '',
  ];
}
