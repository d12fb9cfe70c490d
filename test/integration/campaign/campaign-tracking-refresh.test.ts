import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CampaignItem, CampaignRefreshRequest } from '../../../src/core/campaign/campaign-record.js';
import { EVENT_REFRESH_WINDOW_MS } from '../../../src/core/campaign/pace.js';
import { trackingMarker } from '../../../src/core/campaign/tracking-comment.js';
import { ADMIN, startFleet, type Fleet, type Started } from './campaign-fleet.js';

/**
 * The tracking comment refreshed from outside the campaign's steps (docs/campaigns.md, "The
 * tracking comment"): two targets whose runs each opened a draft pull request, the campaign
 * ended. A campaign pull request's completed check suite, or its close, asks the campaign
 * function for a refresh at the end of the event's window (once per window, whatever deliveries
 * arrive); `/agent campaign status` asks for one at once. Each refresh reads the open pull
 * requests again, whatever the age of their last reading, and a merged or closed pull request
 * shows as such.
 */
let f: Fleet;
const REPOS = ['acme/ok-01', 'acme/ok-02'];
let pulls: Record<string, { number: number; branch: string; head: string; repositoryId: number }>;

const campaign = () => f.started[0];
const prefix = () => campaign().key.replace(/campaign\.json$/, '');
const tracking = () => f.h.comments(1).find((c) => c.body.includes(trackingMarker(campaign().campaignId)))!.body;
const row = (repository: string) =>
  tracking()
    .split('\n')
    .find((l) => l.startsWith(`| ${repository} |`));
const refreshes = () => f.asked.filter((a) => a.refresh);
const markers = async () => (await f.h.store.list(`${prefix()}refreshes/`)).sort();

/** A delivery's payload moved to a target repository (the harness builds them for its own). */
function onTarget(payload: Record<string, unknown>, repository: string): Record<string, unknown> {
  const base = payload.repository as Record<string, unknown>;
  const name = repository.split('/')[1];
  return {
    ...payload,
    repository: { ...base, id: pulls[repository].repositoryId, name, full_name: repository, owner: { ...(base.owner as object), login: 'acme' } },
  };
}

function checkSuite(repository: string, id: number): Record<string, unknown> {
  const { head, branch } = pulls[repository];
  return onTarget(f.h.payloads.checkSuiteCompleted({ id, headSha: head, headBranch: branch, conclusion: 'failure' }), repository);
}

/** Execute the one refresh the intake asked since `before` (the launcher's record), as Step Functions would. */
async function runRefresh(before: number): Promise<Started> {
  const asked = refreshes().slice(before);
  expect(asked).toHaveLength(1);
  await f.execute(asked[0]);
  return asked[0];
}

beforeAll(async () => {
  f = await startFleet(2, { concurrency: 2, startsPerMinute: 10, kinds: ['ok'] });
  expect((await f.h.deliver('issues', f.h.payloads.labeled(1, { label: 'agent:campaign', sender: ADMIN }))).statusCode).toBe(202);
  await f.execute();
  pulls = {};
  for (const repository of REPOS) {
    const item = CampaignItem.parse(await f.h.json(`${prefix()}items/${repository}.json`));
    expect(item.state).toBe('changed');
    const published = await f.h.json(`runs/${repository}/${item.runId}/publish.json`);
    pulls[repository] = { number: published.prNumber, branch: published.branch, head: published.publishedCommitSha, repositoryId: item.repositoryId! };
  }
}, 180_000);

afterAll(async () => f?.h.stop());

describe("a campaign's tracking comment, refreshed after its last step", () => {
  it('a check suite completing red on a campaign pull request refreshes it at the end of its window: CI shows fail', async () => {
    const [red] = REPOS;
    // The campaign's last step read every pull request a moment ago (no CI yet).
    expect(row(red)).toMatch(/^\| acme\/ok-01 \| changed \| \[#\d+\]\([^)]+\) \| none \| none \|/);
    f.h.standin.addCheckSuite(red, { headSha: pulls[red].head, headBranch: pulls[red].branch, runs: [{ name: 'build', conclusion: 'failure' }] });
    const before = refreshes().length;
    const res = await f.h.deliver('check_suite', checkSuite(red, 9101));
    expect(res.intake?.[0]).toMatchObject({ handled: true });

    const asked = await runRefresh(before);
    expect(asked.name).toMatch(new RegExp(`^${campaign().campaignId}-refresh-event-\\d{8}T\\d{4}$`));
    // It refreshes when the window ends: every event of the window shows in that one refresh.
    expect(asked.refresh!.waitSeconds).toBeGreaterThan(0);
    expect(asked.refresh!.waitSeconds).toBeLessThanOrEqual(EVENT_REFRESH_WINDOW_MS / 1000);
    expect(row(red)).toMatch(/^\| acme\/ok-01 \| changed \| \[#\d+\]\([^)]+\) \| fail \| none \|/);
    const [marker] = await markers();
    expect(CampaignRefreshRequest.parse(await f.h.json(marker))).toMatchObject({ kind: 'event', cause: 'check_suite acme/ok-01' });
  }, 60_000);

  it('two deliveries at once ask for one refresh; the next window asks again', async () => {
    f.h.clock.advance(EVENT_REFRESH_WINDOW_MS);
    const before = refreshes().length;
    const markersBefore = (await markers()).length;
    const [a, b] = await Promise.all([f.h.deliver('check_suite', checkSuite(REPOS[0], 9102)), f.h.deliver('check_suite', checkSuite(REPOS[1], 9103))]);
    expect([a.intake?.[0], b.intake?.[0]]).toMatchObject([{ handled: true }, { handled: true }]);
    expect(refreshes().length - before).toBe(1);
    expect((await markers()).length - markersBefore).toBe(1);

    // A delivery of the same window later still finds the marker; one in the next window asks again.
    await f.h.deliver('check_suite', checkSuite(REPOS[1], 9104));
    expect(refreshes().length - before).toBe(1);
    f.h.clock.advance(EVENT_REFRESH_WINDOW_MS);
    await f.h.deliver('check_suite', checkSuite(REPOS[1], 9105));
    expect(refreshes().length - before).toBe(2);
  }, 60_000);

  it('an approving review of a campaign pull request (no command in it) refreshes it: review shows approved', async () => {
    const [reviewed] = REPOS;
    f.h.clock.advance(EVENT_REFRESH_WINDOW_MS);
    const { number, head, branch } = pulls[reviewed];
    const review = f.h.standin.addReview(reviewed, number, { user: 'rev', body: 'Fine.', commitId: head, state: 'APPROVED' });
    const user = { login: 'rev', id: 4242, type: 'User' };
    const ref = (name: string, sha: string) => ({ ref: name, sha, repo: { id: pulls[reviewed].repositoryId } });
    const payload = onTarget(
      {
        action: 'submitted',
        review: { id: review.id, body: 'Fine.', user, commit_id: head, state: 'approved' },
        pull_request: { number, state: 'open', head: ref(branch, head), base: ref('main', head) },
        repository: { default_branch: 'main', owner: {} },
        sender: user,
        installation: { id: 7 },
      },
      reviewed,
    );
    const before = refreshes().length;
    expect((await f.h.deliver('pull_request_review', payload)).statusCode).toBe(202);
    await runRefresh(before);
    expect(row(reviewed)).toMatch(/^\| acme\/ok-01 \| changed \| \[#\d+\]\([^)]+\) \| fail \| approved \|/);
  }, 60_000);

  it('`/agent campaign status` after a pull request was merged: the table shows it merged, and the next reply counts it', async () => {
    const [, merged] = REPOS;
    Object.assign(f.h.standin.repo(merged).pulls.get(pulls[merged].number)!, { state: 'closed', merged: true });
    const before = refreshes().length;
    await f.h.deliver('issue_comment', f.h.payloads.comment(1, '/agent campaign status', { sender: 'someone' }));
    expect(f.h.comments(1).at(-1)!.body).toContain('refreshing its pull requests’ CI, review and state');

    const asked = await runRefresh(before);
    expect(asked).toMatchObject({ refresh: { waitSeconds: 0 } });
    expect(asked.name).toMatch(/-refresh-status-\d{8}T\d{4}$/);
    expect(row(merged)).toMatch(/^\| acme\/ok-02 \| merged \| \[#\d+\]\([^)]+\) \|/);
    expect(tracking()).toMatch(/2 of 2 repositories ended — 1 changed, 1 merged\./);

    f.h.clock.advance(60_000);
    await f.h.deliver('issue_comment', f.h.payloads.comment(1, '/agent campaign status', { sender: 'someone' }));
    expect(f.h.comments(1).at(-1)!.body).toContain('2 of 2 repositories ended (1 changed, 1 merged');
  }, 60_000);

  it('a campaign pull request closed without a merge shows as closed, and is not read again', async () => {
    const [closed] = REPOS;
    f.h.clock.advance(EVENT_REFRESH_WINDOW_MS);
    Object.assign(f.h.standin.repo(closed).pulls.get(pulls[closed].number)!, { state: 'closed', merged: false });
    const payload = f.h.payloads.pullRequestClosed(pulls[closed].number, { merged: false, headRef: pulls[closed].branch, headSha: pulls[closed].head });
    const moved = onTarget(payload, closed);
    const pr = moved.pull_request as { head: Record<string, unknown> };
    moved.pull_request = { ...pr, head: { ...pr.head, repo: moved.repository } };
    const before = refreshes().length;
    await f.h.deliver('pull_request', moved);
    await runRefresh(before);
    expect(row(closed)).toMatch(/^\| acme\/ok-01 \| closed \| \[#\d+\]\([^)]+\) \|/);
    expect(tracking()).toMatch(/2 of 2 repositories ended — 1 merged, 1 closed\./);

    // Both pull requests have ended: a refresh reads neither again.
    const reads = () => f.h.standin.calls.filter((c) => c.method === 'GET' && /\/pulls\/\d+$/.test(c.path)).length;
    const was = reads();
    await f.handler({ action: 'refresh', key: campaign().key });
    expect(reads()).toBe(was);
  }, 60_000);
});
