import { commentJson, issueJson } from './repo-json.js';
import type { IssueState, PullState } from './repo-state.js';
import { guarded, need, notFound, pageOf, unprocessable, type RepoRoute, type RouteContext } from './route-context.js';

/** A pull request seen as the issue GitHub also keeps for it. */
function pullAsIssue(pull: PullState): IssueState {
  return {
    number: pull.number,
    title: pull.title,
    body: pull.body,
    state: pull.state,
    user: pull.user,
    labels: pull.labels ?? [],
    createdAt: pull.createdAt,
    updatedAt: pull.updatedAt,
  } as IssueState;
}

/** Issue `number` (or the pull request of that number, as an issue) and the permissions it takes to read or write it. */
function issueTarget(ctx: RouteContext, number: number) {
  const pull = ctx.repo.pulls.get(number);
  const issue = ctx.repo.issues.get(number) ?? (pull ? pullAsIssue(pull) : undefined);
  const readDenied = need(ctx, ['issues', 'read'], ...(pull ? ([['pull_requests', 'read']] as [string, 'read'][]) : []));
  const writeDenied = need(ctx, ['issues', 'write'], ...(pull ? ([['pull_requests', 'write']] as [string, 'write'][]) : []));
  return { pull, issue, readDenied, writeDenied };
}

const getComment: RepoRoute['handle'] = (ctx, m) => {
  const comment = ctx.repo.comments.get(Number(m[1]));
  return need(ctx, ['issues', 'read'], ['pull_requests', 'read']) ?? (comment ? { status: 200, body: commentJson(ctx, comment) } : notFound);
};

const updateComment: RepoRoute['handle'] = (ctx, m, body) => {
  const comment = ctx.repo.comments.get(Number(m[1]));
  const denied = need(ctx, ['issues', 'write'], ['pull_requests', 'write']);
  if (denied) return denied;
  if (!comment) return notFound;
  if (typeof body.body !== 'string') return unprocessable('body is missing');
  comment.body = body.body;
  comment.updatedAt = ctx.now();
  return { status: 200, body: commentJson(ctx, comment) };
};

/** GitHub answers 204 with no body; a comment that is gone is a 404. */
const deleteComment: RepoRoute['handle'] = (ctx, m) => {
  const denied = need(ctx, ['issues', 'write'], ['pull_requests', 'write']);
  if (denied) return denied;
  if (!ctx.repo.comments.delete(Number(m[1]))) return notFound;
  return { status: 204 };
};

/** Lists issues and pull requests (GitHub treats every pull request as an issue). */
const listIssues: RepoRoute['handle'] = (ctx) => {
  const { repo } = ctx;
  const state = ctx.query.get('state') ?? 'open';
  const creator = ctx.query.get('creator');
  const all = [
    ...[...repo.issues.values()].map((issue) => ({ issue, pull: undefined as PullState | undefined })),
    ...[...repo.pulls.values()].map((pull) => ({ issue: pullAsIssue(pull), pull })),
  ].filter(({ issue }) => (state === 'all' || issue.state === state) && (!creator || issue.user.login === creator));
  const { start, perPage } = pageOf(ctx.query);
  const sorted = all.sort((a, b) => b.issue.number - a.issue.number).slice(start, start + perPage);
  return { status: 200, body: sorted.map(({ issue, pull }) => issueJson(ctx, issue, pull)) };
};

const getIssue: RepoRoute['handle'] = (ctx, m) => {
  const { issue, pull, readDenied } = issueTarget(ctx, Number(m[1]));
  return readDenied ?? (issue ? { status: 200, body: issueJson(ctx, issue, pull) } : notFound);
};

const listComments: RepoRoute['handle'] = (ctx, m) => {
  const number = Number(m[1]);
  const { issue, readDenied } = issueTarget(ctx, number);
  if (readDenied) return readDenied;
  if (!issue) return notFound;
  const list = [...ctx.repo.comments.values()].filter((c) => c.issueNumber === number).sort((a, b) => a.id - b.id);
  const { start, perPage } = pageOf(ctx.query);
  return { status: 200, body: list.slice(start, start + perPage).map((c) => commentJson(ctx, c)) };
};

const createComment: RepoRoute['handle'] = (ctx, m, body) => {
  const number = Number(m[1]);
  const { issue, writeDenied } = issueTarget(ctx, number);
  if (writeDenied) return writeDenied;
  if (!issue) return notFound;
  if (typeof body.body !== 'string') return unprocessable('body is missing');
  const now = ctx.now();
  const comment = { id: ctx.nextId(), issueNumber: number, body: body.body, user: ctx.botUser, createdAt: now, updatedAt: now };
  ctx.repo.comments.set(comment.id, comment);
  return { status: 201, body: commentJson(ctx, comment) };
};

const addLabels: RepoRoute['handle'] = (ctx, m, body) => {
  const number = Number(m[1]);
  const { pull, writeDenied } = issueTarget(ctx, number);
  if (writeDenied) return writeDenied;
  // GitHub labels pull requests through the issues API too.
  const stored = ctx.repo.issues.get(number) ?? (pull ? { labels: (pull.labels ??= []), updatedAt: pull.updatedAt } : undefined);
  if (!stored) return notFound;
  const labels = Array.isArray(ctx.body) ? ctx.body : Array.isArray(body.labels) ? body.labels : undefined;
  if (!labels || labels.some((l) => typeof l !== 'string')) return unprocessable('labels must be strings');
  for (const l of labels as string[]) if (!stored.labels.includes(l)) stored.labels.push(l);
  stored.updatedAt = ctx.now();
  if (pull && !ctx.repo.issues.has(number)) pull.updatedAt = stored.updatedAt;
  return { status: 200, body: stored.labels.map((name, i) => ({ id: i + 1, name, color: 'ededed', default: false })) };
};

/** `POST /repos/{owner}/{repo}/issues`: an issue opened as the token's App (a campaign's issue in a target repository, the grants notice). */
const createIssue: RepoRoute['handle'] = (ctx, _m, body) => {
  const denied = need(ctx, ['issues', 'write']);
  if (denied) return denied;
  if (typeof body.title !== 'string' || body.title === '') return unprocessable('title is missing');
  const now = ctx.now();
  const issue: IssueState = {
    number: ctx.repo.nextNumber++,
    title: body.title,
    body: typeof body.body === 'string' ? body.body : null,
    state: 'open',
    user: ctx.botUser,
    labels: [],
    createdAt: now,
    updatedAt: now,
  };
  ctx.repo.issues.set(issue.number, issue);
  return { status: 201, body: issueJson(ctx, issue, undefined) };
};

/** Edits an issue's title, body or state (not a pull request's, in this stand-in). */
const updateIssue: RepoRoute['handle'] = (ctx, m, body) => {
  const denied = need(ctx, ['issues', 'write']);
  if (denied) return denied;
  const issue = ctx.repo.issues.get(Number(m[1]));
  if (!issue) return notFound;
  if (body.state !== undefined && body.state !== 'open' && body.state !== 'closed') return unprocessable('state must be open or closed');
  if (typeof body.title === 'string') issue.title = body.title;
  if (typeof body.body === 'string') issue.body = body.body;
  if (body.state === 'open' || body.state === 'closed') issue.state = body.state;
  issue.updatedAt = ctx.now();
  return { status: 200, body: issueJson(ctx, issue, undefined) };
};

/** Issues, their comments and labels. */
export const ISSUE_ROUTES: RepoRoute[] = [
  { method: 'GET', path: /^\/issues\/comments\/(\d+)$/, handle: getComment },
  { method: 'PATCH', path: /^\/issues\/comments\/(\d+)$/, handle: updateComment },
  { method: 'DELETE', path: /^\/issues\/comments\/(\d+)$/, handle: deleteComment },
  { method: 'GET', path: /^\/issues$/, handle: guarded([['issues', 'read']], listIssues) },
  { method: 'POST', path: /^\/issues$/, handle: createIssue },
  { method: 'PATCH', path: /^\/issues\/(\d+)$/, handle: updateIssue },
  { method: 'GET', path: /^\/issues\/(\d+)$/, handle: getIssue },
  { method: 'GET', path: /^\/issues\/(\d+)\/comments$/, handle: listComments },
  { method: 'POST', path: /^\/issues\/(\d+)\/comments$/, handle: createComment },
  { method: 'POST', path: /^\/issues\/(\d+)\/labels$/, handle: addLabels },
];
