import { runGit } from './git-store.js';
import { pullJson, reviewCommentJson, reviewJson } from './repo-json.js';
import type { PullState } from './repo-state.js';
import { guarded, need, notFound, pageOf, unprocessable, type RepoRoute, type RouteContext, type RouteResult } from './route-context.js';

/** GitHub's pull-request-simple (the list, requested reviewers): no `merged` (its `merged_at` says it). */
async function simplePullJson(ctx: RouteContext, p: PullState) {
  const { merged: _merged, ...rest } = await pullJson(ctx, p);
  return rest;
}

const invalid = (field: string): RouteResult => ({
  status: 422,
  body: { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field, code: 'invalid' }] },
});

/** Why GitHub refuses to open a pull request from `head` into `base`; undefined when it opens one. */
async function openRefusal(ctx: RouteContext, headOwner: string, head: string, base: string): Promise<RouteResult | undefined> {
  const { repo } = ctx;
  if (headOwner.toLowerCase() !== repo.owner.toLowerCase() || !(await repo.git.readRef(`refs/heads/${head}`))) return invalid('head');
  if (!(await repo.git.readRef(`refs/heads/${base}`))) return invalid('base');
  const existing = [...repo.pulls.values()].find((p) => p.state === 'open' && p.head === head && p.base === base);
  if (existing) {
    return {
      status: 422,
      body: {
        message: 'Validation Failed',
        errors: [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${repo.owner}:${head}.` }],
      },
    };
  }
  return undefined;
}

const createPull: RepoRoute['handle'] = async (ctx, _m, body) => {
  const { repo } = ctx;
  if (typeof body.head !== 'string' || typeof body.base !== 'string') return unprocessable('head and base are required');
  if (typeof body.title !== 'string' || body.title === '') return unprocessable('title is required');
  const [headOwner, head] = body.head.includes(':') ? body.head.split(':', 2) : [repo.owner, body.head];
  const refused = await openRefusal(ctx, headOwner, head, body.base);
  if (refused) return refused;
  const now = ctx.now();
  const pull: PullState = {
    number: repo.nextNumber++,
    title: body.title,
    body: typeof body.body === 'string' ? body.body : null,
    state: 'open',
    draft: body.draft === true,
    head,
    headOwner: repo.owner,
    base: body.base,
    user: ctx.botUser,
    requestedReviewers: [],
    createdAt: now,
    updatedAt: now,
  };
  repo.pulls.set(pull.number, pull);
  return { status: 201, body: await pullJson(ctx, pull) };
};

/** Whether `p` passes the `head` filter (`owner` or `owner:branch`). */
function headMatches(p: PullState, headFilter: string | null): boolean {
  if (!headFilter) return true;
  const [o, b] = headFilter.includes(':') ? headFilter.split(':', 2) : [headFilter, undefined];
  return o.toLowerCase() === p.headOwner.toLowerCase() && (b === undefined || b === p.head);
}

const listPulls: RepoRoute['handle'] = async (ctx) => {
  const state = ctx.query.get('state') ?? 'open';
  const headFilter = ctx.query.get('head');
  const baseFilter = ctx.query.get('base');
  const list = [...ctx.repo.pulls.values()].filter(
    (p) => (state === 'all' || p.state === state) && headMatches(p, headFilter) && (!baseFilter || p.base === baseFilter),
  );
  return { status: 200, body: await Promise.all(list.sort((a, b) => b.number - a.number).map((p) => simplePullJson(ctx, p))) };
};

const reviewComments: RepoRoute['handle'] = (ctx, m) => {
  const [number, reviewId] = [Number(m[1]), Number(m[2])];
  const review = ctx.repo.pulls.get(number)?.reviews?.find((r) => r.id === reviewId);
  if (!review) return notFound;
  const perPage = Math.min(100, Number(ctx.query.get('per_page') ?? 30));
  return { status: 200, body: review.comments.slice(0, perPage).map((c) => reviewCommentJson(ctx, number, review, c)) };
};

const listReviews: RepoRoute['handle'] = (ctx, m) => {
  const number = Number(m[1]);
  const pull = ctx.repo.pulls.get(number);
  if (!pull) return notFound;
  const { start, perPage } = pageOf(ctx.query, 100);
  return { status: 200, body: (pull.reviews ?? []).slice(start, start + perPage).map((r) => reviewJson(ctx, number, r)) };
};

const FILE_STATUS: Record<string, string> = { A: 'added', D: 'removed', M: 'modified', T: 'changed' };

/**
 * `GET /pulls/{n}/files`: the files the pull request changes, as GitHub lists them (the
 * three-dot diff from the merge base to the head, no rename detection), paginated.
 */
const listFiles: RepoRoute['handle'] = async (ctx, m) => {
  const pull = ctx.repo.pulls.get(Number(m[1]));
  if (!pull) return notFound;
  const { git, fullName } = ctx.repo;
  const [base, head] = [await git.readRef(`refs/heads/${pull.base}`), await git.readRef(`refs/heads/${pull.head}`)];
  if (!base || !head) return { status: 200, body: [] };
  const numstat = (await runGit(git.gitdir, ['diff', '--numstat', '--no-renames', '-z', `${base}...${head}`])).stdout.toString().split('\0');
  const status = (await runGit(git.gitdir, ['diff', '--name-status', '--no-renames', '-z', `${base}...${head}`])).stdout.toString().split('\0');
  const statusOf = new Map<string, string>();
  for (let i = 0; i + 1 < status.length; i += 2) statusOf.set(status[i + 1], FILE_STATUS[status[i]] ?? 'modified');
  const files = [];
  for (const line of numstat.filter((l) => l !== '')) {
    const [added, deleted, filename] = line.split('\t');
    const [additions, deletions] = [Number(added) || 0, Number(deleted) || 0];
    const sha = (await git.entryAt(head, filename))?.sha ?? (await git.entryAt(base, filename))?.sha ?? '';
    const blob = `${ctx.baseUrl}/${fullName}/blob/${head}/${filename}`;
    files.push({
      sha,
      filename,
      status: statusOf.get(filename) ?? 'modified',
      additions,
      deletions,
      changes: additions + deletions,
      blob_url: blob,
      raw_url: `${ctx.baseUrl}/${fullName}/raw/${head}/${filename}`,
      contents_url: `${ctx.baseUrl}/repos/${fullName}/contents/${filename}?ref=${head}`,
    });
  }
  const { start, perPage } = pageOf(ctx.query, 100);
  return { status: 200, body: files.slice(start, start + perPage) };
};

const getPull: RepoRoute['handle'] = async (ctx, m) => {
  const pull = ctx.repo.pulls.get(Number(m[1]));
  return need(ctx, ['pull_requests', 'read']) ?? (pull ? { status: 200, body: await pullJson(ctx, pull) } : notFound);
};

const updatePull: RepoRoute['handle'] = async (ctx, m, body) => {
  const pull = ctx.repo.pulls.get(Number(m[1]));
  if (!pull) return notFound;
  if (typeof body.title === 'string') pull.title = body.title;
  if (typeof body.body === 'string') pull.body = body.body;
  if (body.state === 'open' || body.state === 'closed') pull.state = body.state;
  if (typeof body.base === 'string') {
    if (!(await ctx.repo.git.readRef(`refs/heads/${body.base}`))) return unprocessable('Validation Failed');
    pull.base = body.base;
  }
  pull.updatedAt = ctx.now();
  return { status: 200, body: await pullJson(ctx, pull) };
};

const requestReviewers: RepoRoute['handle'] = async (ctx, m, body) => {
  const pull = ctx.repo.pulls.get(Number(m[1]));
  if (!pull) return notFound;
  const reviewers = Array.isArray(body.reviewers) ? (body.reviewers as unknown[]).map(String) : [];
  for (const r of reviewers) {
    const role = ctx.repo.collaborators.get(r.toLowerCase());
    if (!role || role === 'none')
      return unprocessable(
        'Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the repository.',
      );
  }
  for (const r of reviewers) if (!pull.requestedReviewers.includes(r)) pull.requestedReviewers.push(r);
  pull.updatedAt = ctx.now();
  return { status: 201, body: await simplePullJson(ctx, pull) };
};

const read = [['pull_requests', 'read']] as [string, 'read'][];
const write = [['pull_requests', 'write']] as [string, 'write'][];

/** Pull requests, their review comments and requested reviewers. */
export const PULL_ROUTES: RepoRoute[] = [
  { method: 'POST', path: /^\/pulls$/, handle: guarded(write, createPull) },
  { method: 'GET', path: /^\/pulls$/, handle: guarded(read, listPulls) },
  { method: 'GET', path: /^\/pulls\/(\d+)\/reviews\/(\d+)\/comments$/, handle: guarded(read, reviewComments) },
  { method: 'GET', path: /^\/pulls\/(\d+)\/reviews$/, handle: guarded(read, listReviews) },
  { method: 'GET', path: /^\/pulls\/(\d+)\/files$/, handle: guarded(read, listFiles) },
  { method: 'GET', path: /^\/pulls\/(\d+)$/, handle: getPull },
  { method: 'PATCH', path: /^\/pulls\/(\d+)$/, handle: guarded(write, updatePull) },
  { method: 'POST', path: /^\/pulls\/(\d+)\/requested_reviewers$/, handle: guarded(write, requestReviewers) },
];
