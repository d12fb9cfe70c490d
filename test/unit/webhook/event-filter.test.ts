import { describe, expect, it } from 'vitest';
import { screenDelivery, SUBSCRIBED_EVENTS } from '../../../src/app/webhook/event-filter.js';
import { draftsmanApp } from '../../../src/app/webhook/probot-app.js';
import type { TriggerService } from '../../../src/app/webhook/trigger-service.js';
import { CapturingLogger } from '../../../src/app/logger.js';

const BOT = 'draftsman[bot]';
const repository = { id: 1, name: 'orders', full_name: 'acme/orders', owner: { login: 'acme' }, default_branch: 'main' };
const issue = { id: 10, number: 3, title: 'T', body: '', updated_at: '2026-01-01T00:00:00Z' };
const human = { login: 'maya', type: 'User' };
const labeled = (over: Record<string, unknown> = {}) => ({
  action: 'labeled',
  issue,
  label: { id: 5, name: 'agent:run' },
  repository,
  sender: human,
  installation: { id: 7 },
  ...over,
});
const comment = (body: string, user = human) => ({
  action: 'created',
  issue,
  comment: { id: 9, body, user, performed_via_github_app: null },
  repository,
  sender: user,
  installation: { id: 7 },
});

describe('the webhook screening (no network)', () => {
  it('lists exactly the events the Probot app handles', async () => {
    const registered: string[] = [];
    const app = { on: (name: string | string[]) => registered.push(...(Array.isArray(name) ? name : [name])) };
    await draftsmanApp({ triggers: {} as TriggerService, logger: new CapturingLogger() })(app as never, {} as never);
    expect(Object.keys(SUBSCRIBED_EVENTS).sort()).toEqual(registered.sort());
  });

  it('accepts a start, a command and the CI and push events; stores nothing it can already tell is ignored', () => {
    expect(screenDelivery('issues', labeled(), BOT)).toEqual({ verdict: 'accept', kind: 'issues.labeled' });
    expect(screenDelivery('issue_comment', comment('/agent run'), BOT)).toEqual({ verdict: 'accept', kind: 'issue_comment.created' });
    expect(screenDelivery('check_suite', { action: 'completed' }, BOT)).toEqual({ verdict: 'accept', kind: 'check_suite.completed' });
    expect(screenDelivery('installation', { action: 'created' }, BOT)).toEqual({ verdict: 'accept', kind: 'installation' });
    expect(screenDelivery('issue_comment', comment('Thanks!'), BOT)).toEqual({ verdict: 'ignore', kind: 'issue_comment.created', why: 'not a command' });
    expect(screenDelivery('issue_comment', comment('/agent run', { login: 'ci[bot]', type: 'Bot' }), BOT)).toMatchObject({
      verdict: 'ignore',
      why: 'comment by a bot or the App',
    });
    expect(screenDelivery('issues', labeled({ sender: { login: BOT, type: 'Bot' } }), BOT)).toMatchObject({ verdict: 'ignore', why: 'sender is a bot' });
    expect(screenDelivery('issues', labeled({ label: undefined }), BOT)).toMatchObject({ verdict: 'ignore', why: 'no label in the event' });
    expect(screenDelivery('issues', { ...labeled(), action: 'edited' }, BOT)).toEqual({
      verdict: 'ignore',
      kind: 'issues.edited',
      why: 'event not subscribed',
    });
    // An opened issue (agent.on.issueOpened): by a person it is looked at; by a bot, or with no author, not.
    const opened = (user: unknown) => ({ ...labeled(), action: 'opened', issue: { ...issue, user, labels: [] } });
    expect(screenDelivery('issues', opened(human), BOT)).toEqual({ verdict: 'accept', kind: 'issues.opened' });
    expect(screenDelivery('issues', opened({ login: 'deps[bot]', type: 'Bot' }), BOT)).toMatchObject({ verdict: 'ignore', why: 'opened by a bot or the App' });
    expect(screenDelivery('issues', opened(null), BOT)).toMatchObject({ verdict: 'ignore', why: 'the author is unknown' });
    expect(screenDelivery('star', { action: 'created' }, BOT)).toMatchObject({ verdict: 'ignore', why: 'event not subscribed' });
    // Names of Object.prototype members are not events.
    expect(screenDelivery('constructor', {}, BOT)).toMatchObject({ verdict: 'ignore', why: 'event not subscribed' });
  });

  it('keeps a plain review of an agent pull request (a campaign tracks its review state); drops it elsewhere and from bots', () => {
    const review = (head: string, state: string, user = human) => ({
      action: 'submitted',
      review: { id: 4, body: 'Looks good.', user, state },
      pull_request: { number: 12, head: { ref: head, sha: 'a'.repeat(40) }, base: { ref: 'main', sha: 'b'.repeat(40) } },
      repository,
      sender: user,
      installation: { id: 7 },
    });
    expect(screenDelivery('pull_request_review', review('agent/i3/rcampaign-1', 'approved'), BOT)).toEqual({
      verdict: 'accept',
      kind: 'pull_request_review.submitted',
    });
    expect(screenDelivery('pull_request_review', review('feature/x', 'approved'), BOT)).toMatchObject({ verdict: 'ignore', why: 'not a command' });
    expect(screenDelivery('pull_request_review', review('agent/i3/rcampaign-1', 'approved', { login: 'ci[bot]', type: 'Bot' }), BOT)).toMatchObject({
      verdict: 'ignore',
    });
  });

  it("calls a payload outside the handlers' zod subset invalid (the webhook answers 400)", () => {
    expect(screenDelivery('issues', { action: 'labeled', installation: { id: 7 } }, BOT).verdict).toBe('invalid');
    expect(screenDelivery('push', { ref: 'refs/heads/main', after: 'not-a-sha', repository, sender: human, installation: { id: 7 } }, BOT).verdict).toBe(
      'invalid',
    );
  });
});
