import { Buffer } from 'node:buffer';
import type { AgentSchedule } from '../../core/policy/agent-schedules.js';
import { renderAgentBlock } from '../../core/phases/analysis-report.js';
import { TaskBlock } from '../../core/task/task-contract.js';
import { trackingIssue } from '../github/tracking-issue.js';
import type { IssuesLabeledPayload } from '../webhook/webhook-payloads.js';
import type { WebhookSession } from '../webhook/webhook-session.js';

/** Most bytes of a schedule's task file: a task is a page of text. */
export const MAX_TASK_FILE_BYTES = 64 * 1024;

/** Marks the tracking issue the App keeps for one schedule of a repository. */
export function scheduleIssueMarker(schedule: string): string {
  return `<!-- draftsman:schedule:${schedule} -->`;
}

/**
 * The task a scheduled run gets, as an issue body: the entry's steps as an `agent` block, or its
 * task file as read from the default branch now. Undefined with a reason when the file is
 * missing, too large or the steps are not a task block.
 */
export async function scheduleTask(session: WebhookSession, entry: AgentSchedule): Promise<{ title: string; body: string } | { problem: string }> {
  const title = `Scheduled run: ${entry.name}`;
  if (entry.steps) {
    const block = TaskBlock.safeParse({ steps: entry.steps, mode: entry.mode });
    if (!block.success) return { problem: `the steps of schedule \`${entry.name}\` are not a task block: ${block.error.issues[0]?.message ?? 'invalid'}` };
    return {
      title,
      body: [`Scheduled by \`agent.schedules\` (\`${entry.name}\`, \`${entry.cron}\` UTC).`, '', ...renderAgentBlock(block.data), ''].join('\n'),
    };
  }
  const api = await session.api();
  const path = entry.taskFile!;
  const found = await api.rest.repos.getContent({ ...session.ref, path, ref: session.defaultBranch }).catch((error: unknown) => {
    if ((error as { status?: number }).status === 404) return undefined;
    throw error;
  });
  const file = found?.data as { type?: string; size?: number; content?: string; encoding?: string } | undefined;
  if (!file || file.type !== 'file' || file.encoding !== 'base64' || file.content === undefined)
    return { problem: `the task file \`${path}\` is not a file on \`${session.defaultBranch}\`` };
  if ((file.size ?? 0) > MAX_TASK_FILE_BYTES) return { problem: `the task file \`${path}\` is over ${MAX_TASK_FILE_BYTES} bytes` };
  return { title, body: Buffer.from(file.content, 'base64').toString('utf8') };
}

/**
 * The issue a scheduled run reports on: the entry's `issue`, or the tracking issue the App keeps
 * for the schedule (src/app/github/tracking-issue.ts: found by its marker, opened once). The run's words are the schedule's, read from the default branch, not the issue's.
 */
export async function scheduleIssue(
  session: WebhookSession,
  entry: AgentSchedule,
  task: { title: string; body: string },
): Promise<IssuesLabeledPayload['issue']> {
  const api = await session.api();
  const marker = scheduleIssueMarker(entry.name);
  const issue =
    entry.issue !== undefined
      ? (await api.rest.issues.get({ ...session.ref, issue_number: entry.issue })).data
      : await trackingIssue(api, {
          ...session.ref,
          botLogin: session.deps.botLogin,
          marker,
          title: task.title,
          body: `Runs of the schedule \`${entry.name}\` (\`${entry.cron}\` UTC, from \`.agent-policy.yaml\`) report here. Close this issue to pause them.\n\n${marker}`,
        });
  return {
    id: issue.id,
    number: issue.number,
    title: task.title,
    body: task.body,
    updated_at: issue.updated_at,
    html_url: issue.html_url,
    state: issue.state,
  };
}
