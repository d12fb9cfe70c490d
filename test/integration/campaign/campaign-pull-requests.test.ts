import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CampaignClosure, CampaignItem } from '../../../src/core/campaign/campaign-record.js';
import { PULL_READ_MAX_AGE_MS } from '../../../src/core/campaign/pace.js';
import { trackingMarker } from '../../../src/core/campaign/tracking-comment.js';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pushCommit } from '../../helpers/push-commit.js';
import { ADMIN, startFleet, type Fleet } from './campaign-fleet.js';

/**
 * A campaign's open pull requests, through the App (docs/campaigns.md, "Commands on the home
 * issue" and "The tracking comment"): three targets whose runs each opened a draft pull request.
 * The tracking comment shows each pull request's CI and review as the stand-in holds them;
 * `/agent campaign rebase` rebuilds the one whose base moved through the per-PR rebase;
 * `/agent campaign close <reason>` closes the open ones through the publisher (a comment with
 * the reason, the branch deleted) and leaves the merged one alone; a second close changes nothing.
 */
let f: Fleet;
const REPOS = ['acme/ok-01', 'acme/ok-02', 'acme/ok-03'];
let pulls: Record<string, { number: number; branch: string; runId: string; head: string }>;

const itemsPrefix = () => f.started[0].key.replace(/campaign\.json$/, 'items/');
const tracking = () => f.h.comments(1).filter((c) => c.body.includes(trackingMarker(f.started[0].campaignId)));
const prComments = (repository: string) => [...f.h.standin.repo(repository).comments.values()].filter((c) => c.issueNumber === pulls[repository].number);
const parentsOf = (repository: string, sha: string) =>
  execFileSync('git', ['--git-dir', join(f.h.standin.gitRoot, `${repository}.git`), 'rev-list', '--parents', '-n', '1', sha], { encoding: 'utf8' })
    .trim()
    .split(' ')
    .slice(1);
const headOf = async (repository: string, branch: string) => f.h.standin.resolve(repository, `refs/heads/${branch}`);

beforeAll(async () => {
  f = await startFleet(3, { concurrency: 3, startsPerMinute: 10, kinds: ['ok'] });
  expect((await f.h.deliver('issues', f.h.payloads.labeled(1, { label: 'agent:campaign', sender: ADMIN }))).statusCode).toBe(202);
  await f.execute();
  pulls = {};
  for (const repository of REPOS) {
    const item = CampaignItem.parse(await f.h.json(`${itemsPrefix()}${repository}.json`));
    expect(item.state).toBe('changed');
    const published = await f.h.json(`runs/${repository}/${item.runId}/publish.json`);
    pulls[repository] = { number: published.prNumber, branch: published.branch, runId: item.runId!, head: published.publishedCommitSha };
  }
}, 180_000);

afterAll(async () => f?.h.stop());

describe("a campaign's pull requests", () => {
  it('the tracking comment shows each pull request CI and review state, read from GitHub when it is refreshed', async () => {
    const [failing, approved, pending] = REPOS;
    f.h.standin.addCheckSuite(failing, { headSha: pulls[failing].head, runs: [{ name: 'build', conclusion: 'failure' }] });
    f.h.standin.addReview(failing, pulls[failing].number, { user: ADMIN, body: 'not like this', commitId: pulls[failing].head, state: 'CHANGES_REQUESTED' });
    f.h.standin.addCheckSuite(approved, { headSha: pulls[approved].head, runs: [{ name: 'build', conclusion: 'success' }] });
    f.h.standin.addStatus(approved, pulls[approved].head, { context: 'lint', state: 'success' });
    f.h.standin.addReview(approved, pulls[approved].number, { user: 'rev', body: 'hmm', commitId: pulls[approved].head, state: 'CHANGES_REQUESTED' });
    f.h.standin.addReview(approved, pulls[approved].number, { user: 'rev', body: 'fine now', commitId: pulls[approved].head, state: 'APPROVED' });
    f.h.standin.addStatus(pending, pulls[pending].head, { context: 'deploy-preview', state: 'pending' });

    // A reading younger than the bound is not repeated; once it is older, the next refresh reads again.
    f.h.clock.advance(PULL_READ_MAX_AGE_MS);
    await f.handler({ action: 'finish', key: f.started[0].key });
    const [comment] = tracking();
    const row = (repository: string) => comment.body.split('\n').find((l) => l.startsWith(`| ${repository} |`));
    expect(row(failing)).toMatch(/^\| acme\/ok-01 \| changed \| \[#\d+\]\([^)]+\) \| fail \| changes requested \|/);
    expect(row(approved)).toMatch(/^\| acme\/ok-02 \| changed \| \[#\d+\]\([^)]+\) \| pass \| approved \|/);
    expect(row(pending)).toMatch(/^\| acme\/ok-03 \| changed \| \[#\d+\]\([^)]+\) \| pending \| none \|/);

    // Within the bound, a refresh reads nothing from GitHub and shows the same.
    const reads = () => f.h.standin.calls.filter((c) => c.method === 'GET' && /\/pulls\/\d+\/reviews$/.test(c.path)).length;
    const before = reads();
    await f.handler({ action: 'finish', key: f.started[0].key });
    expect(reads()).toBe(before);
    expect(tracking()[0].body).toBe(comment.body);
  });

  it('rebase rebuilds the pull request whose base moved, through the per-PR rebase, and leaves the others', async () => {
    const [moved, still] = REPOS;
    const before = await headOf(moved, pulls[moved].branch);
    const main = pushCommit(f.h.standin, moved, 'main', { 'docs/changelog.md': '# Changes\n' }, { message: 'Start a changelog' });
    expect((await f.h.deliver('issue_comment', f.h.payloads.comment(1, '/agent campaign rebase', { sender: ADMIN }))).statusCode).toBe(202);
    await f.h.drain();

    const head = (await headOf(moved, pulls[moved].branch))!;
    expect(parentsOf(moved, head)).toEqual([before, main.after]);
    expect(await f.h.json(`runs/${moved}/${pulls[moved].runId}/attempts/2/request.json`)).toMatchObject({ reason: 'rebase', sender: ADMIN });
    expect(await f.h.json(`runs/${moved}/${pulls[moved].runId}/publish.json`)).toMatchObject({ attempt: 2, builtOn: main.after });
    expect(await headOf(still, pulls[still].branch)).toBe(pulls[still].head);
    expect(await f.h.json(`runs/${still}/${pulls[still].runId}/attempts/2/request.json`)).toBeUndefined();
    const reply = f.h.comments(1).at(-1)!.body;
    expect(reply).toContain('1 pull request rebuilding');
    expect(reply).toMatch(/\| acme\/ok-01 \| \[#\d+\]\([^)]+\) \| rebuilding on the new base \|/);
    expect(reply).toMatch(/\| acme\/ok-02 \| \[#\d+\]\([^)]+\) \| up to date \|/);
    pulls[moved].head = head;

    // `from <owner/repo>` goes on where a command stopped: the repositories before it are not looked at.
    await f.h.deliver('issue_comment', f.h.payloads.comment(1, '/agent campaign rebase from acme/ok-02', { sender: ADMIN }));
    const from = f.h.comments(1).at(-1)!.body;
    expect(from).toContain('0 pull requests rebuilding');
    expect(from).not.toContain('acme/ok-01');
    expect(from).toMatch(/\| acme\/ok-02 \| \[#\d+\]\([^)]+\) \| up to date \|/);
    expect(from).toMatch(/\| acme\/ok-03 \| \[#\d+\]\([^)]+\) \| up to date \|/);
  }, 120_000);

  it('close closes the open pull requests through the publisher with the reason and deletes their branches; a merged one is left alone', async () => {
    const [first, second, merged] = REPOS;
    const pr = f.h.standin.repo(merged).pulls.get(pulls[merged].number)!;
    Object.assign(pr, { state: 'closed', merged: true });

    const callsBefore = f.h.standin.calls.length;
    const payload = f.h.payloads.comment(1, '/agent campaign close superseded by v2', { sender: ADMIN });
    const res = await f.h.deliver('issue_comment', payload);
    const dispatches = await f.h.drain();
    expect(dispatches.flatMap((d) => d.publisher ?? []).map((r) => r.kind)).toContain('campaign-close');
    // The pull requests were closed and the branches deleted with the publisher's write token, never the intake's read token.
    const closing = f.h.standin.calls
      .slice(callsBefore)
      .filter((c) => (c.method === 'PATCH' && /\/pulls\/\d+$/.test(c.path)) || (c.method === 'DELETE' && c.path.includes('/git/refs/')));
    expect(closing).toHaveLength(4);
    for (const call of closing) expect(call.tokenPermissions).toMatchObject({ pull_requests: 'write', contents: 'write' });

    for (const repository of [first, second]) {
      expect(f.h.standin.repo(repository).pulls.get(pulls[repository].number)!.state).toBe('closed');
      const said = prComments(repository).filter((c) => c.body.includes('superseded by v2'));
      expect(said).toHaveLength(1);
      expect(said[0].user.login).toBe('draftsman[bot]');
      expect(await headOf(repository, pulls[repository].branch)).toBeUndefined();
      expect(CampaignClosure.parse(await f.h.json(`${itemsPrefix().replace(/items\/$/, 'closures/')}${repository}.json`))).toMatchObject({
        outcome: 'closed',
        branchDeleted: true,
      });
    }
    expect(prComments(merged).filter((c) => c.body.includes('superseded'))).toEqual([]);
    expect(await headOf(merged, pulls[merged].branch)).toBe(pulls[merged].head);
    const report = f.h.comments(1).find((c) => c.body.includes('closed by @ada: superseded by v2'))!;
    expect(report.body).toMatch(/\| acme\/ok-03 \| \[#\d+\]\([^)]+\) \| merged: left alone \|/);
    expect(report.body).toMatch(/\| acme\/ok-01 \| \[#\d+\]\([^)]+\) \| closed \| `[^`]+` deleted \|/);

    // The same comment delivered again, then a second close: nothing changes on any pull request.
    const snapshot = () => REPOS.map((r) => ({ comments: prComments(r).length, state: f.h.standin.repo(r).pulls.get(pulls[r].number)!.state }));
    const was = snapshot();
    const writes = () => f.h.standin.calls.filter((c) => c.method !== 'GET' && REPOS.some((r) => c.path.startsWith(`/repos/${r}/`))).length;
    const wrote = writes();
    await f.h.deliver('issue_comment', payload, { deliveryId: res.deliveryId });
    await f.h.drain();
    await f.h.deliver('issue_comment', f.h.payloads.comment(1, '/agent campaign close really', { sender: ADMIN }));
    await f.h.drain();
    expect(snapshot()).toEqual(was);
    expect(writes()).toBe(wrote);
    expect(f.h.comments(1).at(-1)!.body).toMatch(/\| acme\/ok-02 \| \[#\d+\]\([^)]+\) \| closed \|/);
  }, 120_000);
});
