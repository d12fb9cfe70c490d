import { z } from 'zod';
import { putArtifactIfAbsent, readArtifactIfPresent, readArtifactVersioned, writeArtifact, putArtifactIfMatch } from '../../core/artifacts/artifact-io.js';
import { hourBucket, issueLatestKey, limitKey, limitPrefix, lockKey, runKeys } from '../../core/artifacts/keys.js';
import { agentBranchName } from '../../core/git/branch-name.js';
import { meetsPermission, type AgentPolicy } from '../../core/policy/agent-policy.js';
import { parsePolicy } from '../../core/policy/parse-policy.js';
import { PolicyError } from '../../core/policy/policy-error.js';
import type { ArtifactStore, Clock, Logger, TokenBroker } from '../../core/ports.js';
import { AttemptRequest, RunRecord, RunRequest } from '../../core/runs/run-request.js';
import { shortId } from '../../core/util/digest.js';
import { parseSlashCommand } from '../../core/task/slash-command.js';
import type { GitHubApi } from '../github/github-api.js';
import { progressMarker, renderProgressComment } from '../github/progress-comment.js';
import type { IssueCommentCreatedPayload, IssuesClosedPayload, IssuesLabeledPayload, RepositoryPayload } from './webhook-payloads.js';

export const IssueLatest = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  progressCommentId: z.number().int().optional(),
  updatedAt: z.string(),
});
export type IssueLatest = z.infer<typeof IssueLatest>;

export const IssueLock = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  acquiredAt: z.string(),
  expiresAt: z.string(),
});
export type IssueLock = z.infer<typeof IssueLock>;

export const CancelMarker = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  /** Attempts up to this one are cancelled; a later retry is not. */
  attempt: z.number().int().positive(),
  by: z.string(),
  reason: z.string(),
  at: z.string(),
});
export type CancelMarker = z.infer<typeof CancelMarker>;

export const ApprovalMarker = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  attempt: z.number().int().positive(),
  by: z.string(),
  gateId: z.string(),
  at: z.string(),
});

export interface TriggerServiceOptions {
  store: ArtifactStore;
  /** A broker that can mint read-role tokens only. */
  tokens: TokenBroker;
  github: (token: string) => GitHubApi;
  clock: Clock;
  logger: Logger;
  /** The App's bot login (`<slug>[bot]`): its own comments never trigger anything. */
  botLogin: string;
  apiUrl: string;
  lockTtlMs?: number;
}

export type TriggerOutcome =
  | { kind: 'ignored'; why: string }
  | { kind: 'replied'; why: string }
  | { kind: 'started'; runId: string; attempt: number }
  | { kind: 'duplicate'; runId: string }
  | { kind: 'cancelled'; runId: string }
  | { kind: 'policy-invalid' };

const POLICY_PATH = '.agent-policy.yaml';
const POLICY_ERROR_MARKER = '<!-- draftsman:policy-error -->';

/**
 * What the webhook does with a trigger: decide whether to care, then write the request. It
 * never runs the pipeline (STYLE 8); the worker does, from the stored snapshot.
 */
export class TriggerService {
  private readonly lockTtlMs: number;

  constructor(private readonly options: TriggerServiceOptions) {
    this.lockTtlMs = options.lockTtlMs ?? 2 * 60 * 60 * 1000;
  }

  async onLabeled(payload: IssuesLabeledPayload, deliveryId: string): Promise<TriggerOutcome> {
    if (isBotOrSelf(payload.sender, this.options.botLogin)) return { kind: 'ignored', why: 'sender is a bot' };
    if (payload.issue.pull_request) return { kind: 'ignored', why: 'labels on pull requests do not trigger runs' };
    const session = await this.session(payload.repository, payload.installation.id);
    const policy = await this.trustedPolicy(session, payload.issue.number);
    if (!policy) return { kind: 'policy-invalid' };
    if (payload.label?.name !== policy.triggers.label) return { kind: 'ignored', why: 'not the trigger label' };
    return this.startRun(session, policy, {
      issue: payload.issue,
      sender: payload.sender.login,
      trigger: { kind: 'label', key: `label-${deliveryId}` },
    });
  }

  async onComment(payload: IssueCommentCreatedPayload): Promise<TriggerOutcome> {
    if (isBotOrSelf(payload.sender, this.options.botLogin) || isBotOrSelf(payload.comment.user, this.options.botLogin) || payload.comment.performed_via_github_app) {
      return { kind: 'ignored', why: 'comment by a bot or the App' };
    }
    if (payload.issue.pull_request) return { kind: 'ignored', why: 'comments on pull requests do not trigger runs' };
    // Cheap check before any API call: only comments that start with a slash can matter.
    if (!/^\s*\//m.test(payload.comment.body)) return { kind: 'ignored', why: 'not a command' };
    const session = await this.session(payload.repository, payload.installation.id);
    const policy = await this.trustedPolicy(session, payload.issue.number);
    if (!policy) return { kind: 'policy-invalid' };
    const command = parseSlashCommand(payload.comment.body, policy.triggers.commandPrefix);
    if (!command) return { kind: 'ignored', why: 'no command with the policy prefix' };
    const issueNumber = payload.issue.number;
    if (command.command === 'help') {
      await this.reply(session, issueNumber, helpText(policy));
      return { kind: 'replied', why: 'help' };
    }
    if (command.command === 'status') return this.status(session, issueNumber);
    const allowed = await this.checkPermission(session, issueNumber, payload.sender.login, policy);
    if (!allowed) return { kind: 'replied', why: 'insufficient permission' };
    switch (command.command) {
      case 'run':
      case 'analyze':
        return this.startRun(session, policy, {
          issue: payload.issue,
          sender: payload.sender.login,
          trigger: { kind: 'comment', key: `comment-${payload.comment.id}`, command: command.command },
          comment: { id: payload.comment.id, body: payload.comment.body },
          forcedMode: command.command === 'analyze' ? 'analysis' : undefined,
        });
      case 'cancel':
        return this.cancel(session, issueNumber, payload.sender.login, 'cancelled by /agent cancel');
      case 'approve':
      case 'retry':
        return this.nextAttempt(session, issueNumber, payload.sender.login, command.command);
      default:
        return { kind: 'ignored', why: `unhandled command ${command.command}` };
    }
  }

  async onClosed(payload: IssuesClosedPayload): Promise<TriggerOutcome> {
    const session = await this.session(payload.repository, payload.installation.id, false);
    const latest = await readArtifactIfPresent(this.options.store, issueLatestKey(session.owner, session.repo, payload.issue.number), IssueLatest);
    if (!latest) return { kind: 'ignored', why: 'no run for this issue' };
    const lock = await readArtifactIfPresent(this.options.store, lockKey(session.owner, session.repo, payload.issue.number), IssueLock);
    if (!lock) return { kind: 'ignored', why: 'no active run' };
    await this.authorise(session);
    return this.cancel(session, payload.issue.number, payload.sender.login, 'the issue was closed');
  }

  // --- steps -------------------------------------------------------------------------------

  private async session(repository: RepositoryPayload, installationId: number, authorise = true): Promise<Session> {
    const session: Session = {
      owner: repository.owner.login,
      repo: repository.name,
      repositoryId: repository.id,
      installationId,
      defaultBranch: repository.default_branch,
      cloneUrl: repository.clone_url ?? `https://github.com/${repository.full_name}.git`,
      api: undefined,
    };
    if (authorise) await this.authorise(session);
    return session;
  }

  private async authorise(session: Session): Promise<GitHubApi> {
    if (!session.api) {
      const issued = await this.options.tokens.token({ installationId: session.installationId, repositoryId: session.repositoryId, role: 'read' });
      session.api = this.options.github(issued.token);
    }
    return session.api;
  }

  /** The policy from the default branch's head, never a fork or a PR head; undefined when invalid or disabled. */
  private async trustedPolicy(session: Session, issueNumber: number): Promise<AgentPolicy | undefined> {
    const api = await this.authorise(session);
    let text: string | undefined;
    try {
      const branch = await api.rest.repos.getBranch({ owner: session.owner, repo: session.repo, branch: session.defaultBranch });
      const response = await api.rest.repos.getContent({ owner: session.owner, repo: session.repo, path: POLICY_PATH, ref: branch.data.commit.sha });
      const data = response.data as { content?: string; encoding?: string; size?: number };
      if (typeof data.size === 'number' && data.size > 1024 * 1024 && !data.content) text = 'x'.repeat(data.size);
      else text = Buffer.from(data.content ?? '', (data.encoding as BufferEncoding) ?? 'base64').toString('utf8');
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
    }
    let policy: AgentPolicy;
    try {
      policy = parsePolicy({ text, file: POLICY_PATH });
    } catch (error) {
      if (!(error instanceof PolicyError)) throw error;
      await this.upsertMarkedComment(session, issueNumber, POLICY_ERROR_MARKER, actionRequired(error));
      this.options.logger.warn('policy invalid', { owner: session.owner, repo: session.repo, reason: error.reason });
      return undefined;
    }
    if (!policy.agent.enabled) {
      await this.reply(session, issueNumber, 'draftsman is disabled in this repository (`agent.enabled: false` in `.agent-policy.yaml`).');
      return undefined;
    }
    return policy;
  }

  private async checkPermission(session: Session, issueNumber: number, login: string, policy: AgentPolicy): Promise<boolean> {
    const api = await this.authorise(session);
    let role = 'none';
    try {
      const response = await api.rest.repos.getCollaboratorPermissionLevel({ owner: session.owner, repo: session.repo, username: login });
      role = (response.data as { role_name?: string; permission?: string }).role_name ?? response.data.permission ?? 'none';
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
    }
    if (meetsPermission(role, policy.triggers.minPermission)) return true;
    await this.reply(session, issueNumber, `@${login} needs at least \`${policy.triggers.minPermission}\` permission to do that (you have \`${role}\`).`);
    return false;
  }

  private async startRun(
    session: Session,
    policy: AgentPolicy,
    trigger: {
      issue: IssuesLabeledPayload['issue'];
      sender: string;
      trigger: RunRequest['trigger'];
      comment?: { id: number; body: string };
      forcedMode?: 'analysis' | 'draft_pr';
    },
  ): Promise<TriggerOutcome> {
    const { store, clock } = this.options;
    if (trigger.trigger.kind === 'label') {
      const allowed = await this.checkPermission(session, trigger.issue.number, trigger.sender, policy);
      if (!allowed) return { kind: 'replied', why: 'insufficient permission' };
    }
    if (!policy.agent.allowedModes.includes(trigger.forcedMode ?? 'draft_pr') && !(trigger.forcedMode === undefined && policy.agent.allowedModes.includes('analysis'))) {
      await this.reply(session, trigger.issue.number, `This mode is not allowed by \`agent.allowedModes\` (${policy.agent.allowedModes.join(', ')}).`);
      return { kind: 'replied', why: 'mode not allowed' };
    }
    const issueNumber = trigger.issue.number;
    const runId = shortId(session.repositoryId, issueNumber, trigger.trigger.key);
    const keys = runKeys(session.owner, session.repo, runId);
    const now = clock.now();

    // A redelivery of a trigger whose run already exists (even one that finished and released
    // its lock) changes nothing: no lock, no comment.
    if (await store.get(keys.request)) return { kind: 'duplicate', runId };

    // One active run per issue; a redelivery of the same trigger finds its own lock and stops.
    const lockResult = await this.acquireLock(session, issueNumber, runId, 1, now);
    if (lockResult === 'same-run') return { kind: 'duplicate', runId };
    if (lockResult === 'held') {
      await this.reply(session, issueNumber, 'A run is already active on this issue; `/agent cancel` stops it, `/agent status` shows it.');
      return { kind: 'replied', why: 'a run is active' };
    }

    const limited = await this.rateLimited(session, policy, runId, now);
    if (limited) {
      await store.delete(lockKey(session.owner, session.repo, issueNumber));
      await this.reply(session, issueNumber, limited);
      return { kind: 'replied', why: 'rate limited' };
    }

    const api = await this.authorise(session);
    const comment = await api.rest.issues.createComment({
      owner: session.owner,
      repo: session.repo,
      issue_number: issueNumber,
      body: renderProgressComment({ runId, attempt: 1, status: 'QUEUED', phases: [], message: 'waiting for a worker' }),
    });
    const request: RunRequest = {
      schemaVersion: 1,
      runId,
      owner: session.owner,
      repo: session.repo,
      source: { kind: 'github', repositoryId: session.repositoryId, installationId: session.installationId, cloneUrl: session.cloneUrl, apiUrl: this.options.apiUrl },
      trigger: { ...trigger.trigger, sender: trigger.sender },
      issue: {
        number: issueNumber,
        title: trigger.issue.title,
        body: trigger.issue.body ?? '',
        updatedAt: trigger.issue.updated_at,
        url: trigger.issue.html_url,
        progressCommentId: comment.data.id,
      },
      comment: trigger.comment,
      forcedMode: trigger.forcedMode,
      agentBranch: agentBranchName({ runId, issue: issueNumber }),
      createdAt: new Date(now).toISOString(),
    };
    const created = await putArtifactIfAbsent(store, keys.request, RunRequest, request);
    if (!created) {
      // A concurrent delivery of the same trigger won the race: leave no trace of this one.
      await api.rest.issues.deleteComment({ owner: session.owner, repo: session.repo, comment_id: comment.data.id });
      await this.releaseOwnLock(session, issueNumber, runId, 1);
      return { kind: 'duplicate', runId };
    }
    await store.putIfAbsent(limitKey(session.owner, session.repo, now, runId), runId);
    await writeArtifact(store, issueLatestKey(session.owner, session.repo, issueNumber), IssueLatest, {
      schemaVersion: 1,
      runId,
      attempt: 1,
      progressCommentId: comment.data.id,
      updatedAt: new Date(now).toISOString(),
    });
    this.options.logger.info('run requested', { owner: session.owner, repo: session.repo, issue: issueNumber, runId, trigger: trigger.trigger.kind });
    return { kind: 'started', runId, attempt: 1 };
  }

  private async nextAttempt(session: Session, issueNumber: number, sender: string, command: 'approve' | 'retry'): Promise<TriggerOutcome> {
    const { store, clock } = this.options;
    const latest = await readArtifactIfPresent(store, issueLatestKey(session.owner, session.repo, issueNumber), IssueLatest);
    if (!latest) {
      await this.reply(session, issueNumber, `There is no run on this issue to ${command}.`);
      return { kind: 'replied', why: 'no run' };
    }
    const keys = runKeys(session.owner, session.repo, latest.runId);
    const run = await readArtifactIfPresent(store, keys.run, RunRecord);
    const status = run?.status ?? 'QUEUED';
    if (command === 'approve' && (status !== 'NEEDS_APPROVAL' || !run?.pendingGate)) {
      await this.reply(session, issueNumber, `Nothing is waiting for approval (the latest run is ${status}).`);
      return { kind: 'replied', why: 'nothing to approve' };
    }
    if (command === 'retry' && !['FAILED', 'BLOCKED', 'BUDGET_EXCEEDED', 'CANCELLED', 'NEEDS_APPROVAL'].includes(status)) {
      await this.reply(session, issueNumber, `The latest run is ${status}; only a stopped run can be retried.`);
      return { kind: 'replied', why: 'not retryable' };
    }
    const now = clock.now();
    const attempt = Math.max(latest.attempt, run?.attempt ?? 1) + 1;
    const lockResult = await this.acquireLock(session, issueNumber, latest.runId, attempt, now);
    if (lockResult === 'held') {
      await this.reply(session, issueNumber, 'A run is already active on this issue.');
      return { kind: 'replied', why: 'a run is active' };
    }
    if (lockResult === 'same-run') return { kind: 'duplicate', runId: latest.runId };
    const approvedGates = command === 'approve' && run?.pendingGate ? [run.pendingGate] : [];
    if (command === 'approve') {
      await putArtifactIfAbsent(store, keys.approve(attempt), ApprovalMarker, {
        schemaVersion: 1,
        runId: latest.runId,
        attempt,
        by: sender,
        gateId: approvedGates[0] ?? '',
        at: new Date(now).toISOString(),
      });
    }
    const created = await putArtifactIfAbsent(store, keys.attempt(attempt).request, AttemptRequest, {
      schemaVersion: 1,
      runId: latest.runId,
      attempt,
      reason: command,
      sender,
      approvedGates,
      createdAt: new Date(now).toISOString(),
    });
    if (!created) return { kind: 'duplicate', runId: latest.runId };
    await writeArtifact(store, issueLatestKey(session.owner, session.repo, issueNumber), IssueLatest, { ...latest, attempt, updatedAt: new Date(now).toISOString() });
    if (latest.progressCommentId) {
      const api = await this.authorise(session);
      await api.rest.issues.updateComment({
        owner: session.owner,
        repo: session.repo,
        comment_id: latest.progressCommentId,
        body: renderProgressComment({ runId: latest.runId, attempt, status: 'QUEUED', phases: [], message: `${command} by @${sender}; waiting for a worker` }),
      });
    }
    return { kind: 'started', runId: latest.runId, attempt };
  }

  private async cancel(session: Session, issueNumber: number, sender: string, reason: string): Promise<TriggerOutcome> {
    const { store, clock } = this.options;
    const latest = await readArtifactIfPresent(store, issueLatestKey(session.owner, session.repo, issueNumber), IssueLatest);
    if (!latest) {
      await this.reply(session, issueNumber, 'There is no run on this issue to cancel.');
      return { kind: 'replied', why: 'no run' };
    }
    const keys = runKeys(session.owner, session.repo, latest.runId);
    const now = new Date(clock.now()).toISOString();
    await writeArtifact(store, keys.cancel, CancelMarker, { schemaVersion: 1, runId: latest.runId, attempt: latest.attempt, by: sender, reason, at: now });
    await store.delete(lockKey(session.owner, session.repo, issueNumber));
    if (latest.progressCommentId) {
      const api = await this.authorise(session);
      await api.rest.issues.updateComment({
        owner: session.owner,
        repo: session.repo,
        comment_id: latest.progressCommentId,
        body: renderProgressComment({ runId: latest.runId, attempt: latest.attempt, status: 'CANCELLED', phases: [], message: `${reason} (@${sender}); the worker stops at its next step` }),
      });
    }
    return { kind: 'cancelled', runId: latest.runId };
  }

  private async status(session: Session, issueNumber: number): Promise<TriggerOutcome> {
    const latest = await readArtifactIfPresent(this.options.store, issueLatestKey(session.owner, session.repo, issueNumber), IssueLatest);
    if (!latest) {
      await this.reply(session, issueNumber, 'There is no run on this issue yet.');
      return { kind: 'replied', why: 'no run' };
    }
    const run = await readArtifactIfPresent(this.options.store, runKeys(session.owner, session.repo, latest.runId).run, RunRecord);
    const where = latest.progressCommentId ? ` Progress: #issuecomment-${latest.progressCommentId}` : '';
    await this.reply(session, issueNumber, `Run \`${latest.runId}\`, attempt ${latest.attempt}: ${run?.status ?? 'QUEUED'}.${where}`);
    return { kind: 'replied', why: 'status' };
  }

  /** 'acquired', 'same-run' (this run holds it: a redelivery), or 'held' by another live run. */
  private async acquireLock(session: Session, issueNumber: number, runId: string, attempt: number, now: number): Promise<'acquired' | 'same-run' | 'held'> {
    const { store } = this.options;
    const key = lockKey(session.owner, session.repo, issueNumber);
    const value: IssueLock = { schemaVersion: 1, runId, attempt, acquiredAt: new Date(now).toISOString(), expiresAt: new Date(now + this.lockTtlMs).toISOString() };
    for (let tries = 0; tries < 3; tries++) {
      if (await putArtifactIfAbsent(store, key, IssueLock, value)) return 'acquired';
      const current = await readArtifactVersioned(store, key, IssueLock);
      if (!current) continue;
      if (current.value.runId === runId && current.value.attempt >= attempt) return 'same-run';
      if (Date.parse(current.value.expiresAt) > now && current.value.runId !== runId) return 'held';
      // Expired, or an older attempt of this run: take it over with compare-and-swap.
      if (await putArtifactIfMatch(store, key, IssueLock, value, current.etag)) return 'acquired';
    }
    return 'held';
  }

  /** Delete the issue's lock only while it is this run's attempt (never another run's lock). */
  private async releaseOwnLock(session: Session, issueNumber: number, runId: string, attempt: number): Promise<void> {
    const key = lockKey(session.owner, session.repo, issueNumber);
    const current = await readArtifactIfPresent(this.options.store, key, IssueLock);
    if (current && current.runId === runId && current.attempt === attempt) await this.options.store.delete(key);
  }

  private async rateLimited(session: Session, policy: AgentPolicy, runId: string, now: number): Promise<string | undefined> {
    const started = (await this.options.store.list(limitPrefix(session.owner, session.repo, hourBucket(now)))).filter((k) => !k.endsWith(`/${runId}`));
    if (started.length >= policy.limits.runsPerHour) {
      return `This repository reached its limit of ${policy.limits.runsPerHour} runs per hour (\`limits.runsPerHour\`); try again later.`;
    }
    const api = await this.authorise(session);
    // token-read has issues but no pull_requests scope (DESIGN §2): pull requests are counted
    // through the issues API, which lists every pull request as an issue.
    const opened = await api.paginate(api.rest.issues.listForRepo, { owner: session.owner, repo: session.repo, state: 'open', creator: this.options.botLogin, per_page: 100 });
    const open = opened.filter((i) => i.pull_request).length;
    if (open >= policy.limits.maxOpenPullRequests) {
      return `There are already ${open} open draft pull requests by draftsman (\`limits.maxOpenPullRequests\`: ${policy.limits.maxOpenPullRequests}); merge or close some first.`;
    }
    return undefined;
  }

  private async reply(session: Session, issueNumber: number, body: string): Promise<void> {
    const api = await this.authorise(session);
    await api.rest.issues.createComment({ owner: session.owner, repo: session.repo, issue_number: issueNumber, body });
  }

  private async upsertMarkedComment(session: Session, issueNumber: number, marker: string, body: string): Promise<void> {
    const api = await this.authorise(session);
    const comments = await api.paginate(api.rest.issues.listComments, { owner: session.owner, repo: session.repo, issue_number: issueNumber, per_page: 100 });
    const existing = comments.find((c) => c.body?.includes(marker) && c.user?.login === this.options.botLogin);
    const text = `${marker}\n${body}`;
    if (existing) await api.rest.issues.updateComment({ owner: session.owner, repo: session.repo, comment_id: existing.id, body: text });
    else await api.rest.issues.createComment({ owner: session.owner, repo: session.repo, issue_number: issueNumber, body: text });
  }
}

interface Session {
  owner: string;
  repo: string;
  repositoryId: number;
  installationId: number;
  defaultBranch: string;
  cloneUrl: string;
  api: GitHubApi | undefined;
}

function isBotOrSelf(user: { login: string; type?: string }, botLogin: string): boolean {
  return user.type === 'Bot' || user.login === botLogin || user.login.endsWith('[bot]');
}

/** Renovate-style "Action Required" comment for an invalid policy. */
function actionRequired(error: PolicyError): string {
  const lines = [
    '### ⚠️ Action Required: fix `.agent-policy.yaml`',
    '',
    'draftsman will not start runs in this repository until the policy file on the default branch is valid.',
    '',
    '| where | type | problem |',
    '|---|---|---|',
  ];
  for (const p of error.data.problems.slice(0, 50)) {
    lines.push(`| \`${p.file}:${p.line}:${p.column}\`${p.path ? ` (\`${p.path}\`)` : ''} | ${p.type} | ${p.message.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
  }
  if (error.data.problems.length > 50) lines.push(`| … | | ${error.data.problems.length - 50} more |`);
  lines.push('', 'Check it locally with `npx draftsman policy check .agent-policy.yaml`.');
  return lines.join('\n');
}

function helpText(policy: AgentPolicy): string {
  const p = policy.triggers.commandPrefix;
  return [
    `**draftsman commands** (label \`${policy.triggers.label}\` also starts a run):`,
    '',
    `- \`${p} run\`: start a run that ends in a draft pull request`,
    `- \`${p} analyze\`: a plan and impact report, no changes`,
    `- \`${p} status\`: where the latest run stands`,
    `- \`${p} cancel\`: stop the active run`,
    `- \`${p} approve\`: let a run waiting for approval go on`,
    `- \`${p} retry\`: start the latest run again`,
    '',
    `Starting, approving, cancelling and retrying need at least \`${policy.triggers.minPermission}\` permission.`,
    '',
    '<sub>' + progressMarker('help').replace('progress', 'help') + '</sub>',
  ].join('\n');
}
