import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepositoryResolver } from '../../src/app/campaign/campaign-item.js';
import { createGitHubApi } from '../../src/app/github/github-api.js';
import { CapturingLogger } from '../../src/app/logger.js';
import { eventBridgeSchedules } from '../../src/app/schedules/eventbridge-schedules.js';
import { ScheduleFire } from '../../src/app/schedules/schedule-backend.js';
import { scheduleIssueMarker } from '../../src/app/schedules/schedule-issue.js';
import { syncSchedules, type ScheduleSyncLauncher, type SyncReport } from '../../src/app/schedules/schedule-sync.js';
import { startScheduledRun } from '../../src/app/schedules/scheduled-run.js';
import { lookupRepository } from '../../src/app/tokens/lookup-repository.js';
import { progressMarker } from '../../src/app/github/progress-comment.js';
import { DEFAULT_POLICY, HARNESS_APP_ID, HARNESS_BOT_LOGIN, MAINTAINER, harnessReadTokens, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { STANDIN_GITHUB_POLICY } from '../helpers/github-standin/index.js';
import { policyScopedStore } from '../helpers/iam-policy.js';
import { pushCommit } from '../helpers/push-commit.js';
import { startSchedulerStandin, type SchedulerStandin } from '../helpers/scheduler-standin.js';
import { roleStatements } from '../helpers/stack-roles.js';

/**
 * `agent.schedules` end to end (docs/policy-reference.md): a push that changes the default
 * branch's policy makes the intake ask for a sync; the sync reads the policy itself and keeps
 * one EventBridge schedule per entry in the Scheduler stand-in (the real
 * `@aws-sdk/client-scheduler` on loopback, every request checked against the SDK's model);
 * firing one starts an ordinary run that reports on its issue, or on the schedule's tracking
 * issue. Uninstalling removes them.
 */
const ISSUE = 5;
const GROUP = 'draftsman-test';
const FIRE_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:draftsman-test-scheduleFire';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/draftsman-test-schedulerInvoke-us-east-1';
const MIGRATE = `      steps:
        - recipe: migrate-import
          from: javax.persistence
          to: jakarta.persistence
`;
const withSchedules = (entries: string) => DEFAULT_POLICY.replace('agent:\n', `agent:\n  schedules:\n${entries}`);
const TWO = withSchedules(`    - name: weekly-jakarta
      cron: '0 6 * * 1'
${MIGRATE}      issue: ${ISSUE}
    - name: nightly-look
      cron: '30 2 * * *'
${MIGRATE}      mode: analysis
`);
const CHANGED = withSchedules(`    - name: weekly-jakarta
      cron: '15 7 * * 1-5'
${MIGRATE}      issue: ${ISSUE}
`);

let h: AppHarness;
let scheduler: SchedulerStandin;
const reports: SyncReport[] = [];

const name = (entry: string) => `i${h.installationId}-r${h.repositoryId}-${entry}`;

/** A push of the policy file to main, as GitHub reports it (the commit lists what it touched). */
async function pushPolicy(text: string, touched = ['.agent-policy.yaml'], files: Record<string, string> = {}) {
  const commits = pushCommit(h.standin, h.fullName, 'main', { ...files, '.agent-policy.yaml': text });
  const payload = { ...h.payloads.push('main', commits), commits: [{ id: commits.after, added: [], removed: [], modified: touched }] };
  return h.deliver('push', payload);
}

/** schedule-fire as deployed: ScheduleFireRole's view of the bucket, token-read's tokens and repository lookup. */
function fireDeps() {
  const pem = h.secrets().find((s) => s.label === 'private-key')!.value;
  const repositories: RepositoryResolver = {
    resolve: (fullName, installationId) =>
      lookupRepository(
        { appId: HARNESS_APP_ID, apiUrl: h.standin.url, privateKey: pem, clock: h.clock, policy: STANDIN_GITHUB_POLICY },
        { installationId, lookup: fullName },
      ),
  };
  return {
    store: policyScopedStore(h.store, h.s3.bucket, [roleStatements('ScheduleFireRole', { bucket: h.s3.bucket })], {}),
    tokens: harnessReadTokens(h),
    github: (token: string) => createGitHubApi({ token, baseUrl: h.standin.url, policy: STANDIN_GITHUB_POLICY }),
    clock: h.clock,
    logger: new CapturingLogger({ clock: h.clock, bindings: { fn: 'scheduleFire' } }, h.logs),
    botLogin: HARNESS_BOT_LOGIN,
    apiUrl: h.standin.url,
    repositories,
  };
}

const fire = (entry: string, at: string) => startScheduledRun(fireDeps(), ScheduleFire.parse(scheduler.fire(name(entry), at).input));

beforeAll(async () => {
  scheduler = await startSchedulerStandin();
  const client = new SchedulerClient({
    region: 'us-east-1',
    endpoint: scheduler.url,
    credentials: { accessKeyId: 'AKIDSCHEDULER', secretAccessKey: 'scheduler-secret' },
    maxAttempts: 1,
  });
  const backend = eventBridgeSchedules({ client, groupName: GROUP, targetArn: FIRE_ARN, roleArn: ROLE_ARN });
  // The sync as deployed: its own read tokens, no store; the intake hands it the request.
  const launcher: ScheduleSyncLauncher = {
    async sync(request) {
      reports.push(
        await syncSchedules(
          {
            store: undefined as never,
            tokens: harnessReadTokens(h),
            github: (token) => createGitHubApi({ token, baseUrl: h.standin.url, policy: STANDIN_GITHUB_POLICY }),
            clock: h.clock,
            logger: new CapturingLogger({ clock: h.clock, bindings: { fn: 'scheduleSync' } }, h.logs),
            botLogin: HARNESS_BOT_LOGIN,
            apiUrl: h.standin.url,
            schedules: backend,
          },
          request,
        ),
      );
    },
  };
  h = await startAppHarness({
    schedules: launcher,
    issues: [{ number: ISSUE, title: 'Keep on Jakarta', body: 'Scheduled migrations report here.', user: MAINTAINER }],
  });
}, 120_000);

afterAll(async () => {
  await h?.stop();
  await scheduler?.close();
});

describe('schedules from the policy', () => {
  it('a push that changes the policy on main creates one schedule per entry, in UTC, with the entry as its input', async () => {
    const res = await pushPolicy(TWO);
    expect(res.intake?.[0]).toMatchObject({ handled: true });
    const now = scheduler.schedules();
    expect([...now.keys()].sort()).toEqual([name('nightly-look'), name('weekly-jakarta')]);
    const weekly = now.get(name('weekly-jakarta'))!;
    expect(weekly).toMatchObject({
      GroupName: GROUP,
      ScheduleExpression: 'cron(0 6 ? * MON *)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: FIRE_ARN, RoleArn: ROLE_ARN },
    });
    expect(JSON.parse(weekly.Target.Input!)).toEqual({
      installationId: h.installationId,
      repositoryId: h.repositoryId,
      owner: h.owner,
      repo: h.repo,
      schedule: 'weekly-jakarta',
      cron: '0 6 * * 1',
      scheduledTime: '<aws.scheduler.scheduled-time>',
    });
    expect(now.get(name('nightly-look'))!.ScheduleExpression).toBe('cron(30 2 * * ? *)');
    expect(scheduler.violations).toEqual([]);
  });

  it('the same policy again changes nothing; a push that does not touch the policy asks for no sync', async () => {
    const calls = scheduler.calls.length;
    await h.deliver('push', { ...h.payloads.push('main', pushCommit(h.standin, h.fullName, 'main', { 'README.md': 'x\n' })), commits: [] });
    expect(scheduler.calls.length).toBe(calls);
    await pushPolicy(`${TWO}# a comment\n`);
    expect(reports.at(-1)).toMatchObject({ created: [], updated: [], deleted: [] });
    expect(scheduler.calls.slice(calls).map((c) => c.operation)).not.toContain('UpdateSchedule');
  });

  it('a changed entry updates its schedule and a removed entry deletes its own', async () => {
    const calls = scheduler.calls.length;
    await pushPolicy(CHANGED);
    expect(reports.at(-1)).toMatchObject({ updated: [name('weekly-jakarta')], deleted: [name('nightly-look')], created: [] });
    expect([...scheduler.schedules().keys()]).toEqual([name('weekly-jakarta')]);
    expect(scheduler.schedules().get(name('weekly-jakarta'))!.ScheduleExpression).toBe('cron(15 7 ? * MON-FRI *)');
    expect(scheduler.calls.slice(calls).map((c) => c.operation)).toEqual(expect.arrayContaining(['UpdateSchedule', 'DeleteSchedule']));
    expect(scheduler.violations).toEqual([]);
  });

  it('firing a schedule starts an ordinary run that reports on the issue it names; a repeated firing of the same hour is the same run', async () => {
    const started = await fire('weekly-jakarta', '2026-02-09T07:15:00Z');
    expect(started).toMatchObject({ kind: 'started' });
    const runId = (started as { runId: string }).runId;
    const request = await h.json(`runs/${h.owner}/${h.repo}/${runId}/request.json`);
    expect(request).toMatchObject({ trigger: { kind: 'schedule', key: 'schedule-weekly-jakarta-2026-02-09T07' }, issue: { number: ISSUE } });
    expect(request.issue.body).toContain('recipe: migrate-import');
    expect(await fire('weekly-jakarta', '2026-02-09T07:15:00Z')).toEqual({ kind: 'duplicate', runId });
    await h.drain();
    const progress = h.comments(ISSUE).find((c) => c.user === h.botLogin && c.body.includes(progressMarker(runId)));
    expect(progress?.body).toContain('**Status:** PUBLISHED');
    expect(h.standin.repo(h.fullName).pulls.size).toBe(1);
  });

  it('an entry without an issue reports on one tracking issue the App opens once', async () => {
    await pushPolicy(
      withSchedules(`    - name: nightly-look
      cron: '30 2 * * *'
${MIGRATE}      mode: analysis
`),
    );
    const first = await fire('nightly-look', '2026-02-10T02:30:00Z');
    const second = await fire('nightly-look', '2026-02-11T02:30:00Z');
    expect(first).toMatchObject({ kind: 'started' });
    const tracking = [...h.standin.repo(h.fullName).issues.values()].filter((i) => i.body?.includes(scheduleIssueMarker('nightly-look')));
    expect(tracking).toHaveLength(1);
    const firstRequest = await h.json(`runs/${h.owner}/${h.repo}/${(first as { runId: string }).runId}/request.json`);
    expect(firstRequest).toMatchObject({ issue: { number: tracking[0].number }, forcedMode: 'analysis' });
    // The second firing finds the same issue; its run waits for the first (the issue's lock).
    expect(second).toMatchObject({ kind: 'replied', why: 'a run is active' });
  });

  it('a task file is read from the default branch when the schedule fires; steps that are not a task block start nothing and say why', async () => {
    const TASK_FILE = 'Migrate what is left.\n\n```agent\nsteps:\n  - recipe: migrate-import\n    from: javax.persistence\n    to: jakarta.persistence\n```\n';
    await pushPolicy(
      withSchedules(`    - name: from-file
      cron: '0 5 * * *'
      taskFile: .github/agent/jakarta.md
    - name: broken-steps
      cron: '0 4 * * *'
      steps:
        - recipe: no-such-recipe
`),
      ['.agent-policy.yaml', '.github/agent/jakarta.md'],
      { '.github/agent/jakarta.md': TASK_FILE },
    );
    const fromFile = await fire('from-file', '2026-02-12T05:00:00Z');
    expect(fromFile).toMatchObject({ kind: 'started' });
    const request = await h.json(`runs/${h.owner}/${h.repo}/${(fromFile as { runId: string }).runId}/request.json`);
    expect(request.issue.body).toBe(TASK_FILE);
    const broken = await fire('broken-steps', '2026-02-12T04:00:00Z');
    expect(broken).toMatchObject({ kind: 'replied' });
    const tracking = [...h.standin.repo(h.fullName).issues.values()].find((i) => i.body?.includes(scheduleIssueMarker('broken-steps')))!;
    expect(h.comments(tracking.number).at(-1)?.body).toContain(
      'The schedule `broken-steps` did not start a run: the steps of schedule `broken-steps` are not a task block',
    );
  });

  it('a repository taken out of the installation loses its schedules; another repository’s removal leaves them', async () => {
    const removed = (id: number) => ({
      action: 'removed',
      installation: { id: h.installationId, account: { login: h.owner } },
      repository_selection: 'selected',
      repositories_added: [],
      repositories_removed: [{ id, name: 'x', full_name: `${h.owner}/x` }],
      sender: { login: MAINTAINER, type: 'User' },
    });
    expect(scheduler.schedules().size).toBe(2);
    await h.deliver('installation_repositories', removed(999_999));
    expect(scheduler.schedules().size).toBe(2);
    await h.deliver('installation_repositories', removed(h.repositoryId));
    expect(scheduler.schedules().size).toBe(0);
  });

  it('uninstalling the App removes every schedule of the installation', async () => {
    await pushPolicy(TWO);
    expect(scheduler.schedules().size).toBe(2);
    const deleted = { action: 'deleted', installation: { id: h.installationId, account: { login: h.owner } }, sender: { login: MAINTAINER, type: 'User' } };
    await h.deliver('installation', deleted);
    expect(scheduler.schedules().size).toBe(0);
    expect(scheduler.violations).toEqual([]);
  });
});
