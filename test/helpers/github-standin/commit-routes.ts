import { gitCommitJson, iso } from './repo-json.js';
import type { CheckSuiteState, CommitStatusState } from './repo-state.js';
import { guarded, jobLogSignature, need, notFound, pageOf, unprocessable, type RepoRoute, type RouteContext, type RouteResult } from './route-context.js';

type Checked = (ctx: RouteContext, sha: string, suites: CheckSuiteState[]) => RouteResult;

/**
 * `GET /commits/{ref}/<which>`: the permission `which` needs, then the commit the ref names
 * (a 422 when none), then `answer` with the check suites on that commit.
 */
function onCommit(permission: 'checks' | 'statuses', answer: Checked): RepoRoute['handle'] {
  return async (ctx, m) => {
    const denied = need(ctx, [permission, 'read']);
    if (denied) return denied;
    const sha = await ctx.repo.git.resolveCommitish(decodeURIComponent(m[1]));
    if (!sha) return unprocessable(`No commit found for SHA: ${decodeURIComponent(m[1])}`);
    return answer(
      ctx,
      sha,
      ctx.repo.checkSuites.filter((s) => s.headSha === sha),
    );
  };
}

const checkSuites: Checked = (ctx, _sha, suites) => {
  const appId = ctx.query.get('app_id');
  const list = suites.filter((s) => !appId || String(s.app.id) === appId);
  return {
    status: 200,
    body: {
      total_count: list.length,
      check_suites: list.map((s) => ({
        id: s.id,
        head_sha: s.headSha,
        head_branch: s.headBranch,
        status: s.status,
        conclusion: s.conclusion,
        app: s.app,
        latest_check_runs_count: s.runs.length,
        created_at: iso(s.createdAt),
        updated_at: iso(s.createdAt),
      })),
    },
  };
};

const checkRuns: Checked = (ctx, _sha, suites) => {
  const { baseUrl, repo } = ctx;
  const name = ctx.query.get('check_name');
  const status = ctx.query.get('status');
  const runs = suites.flatMap((s) => s.runs.map((r) => ({ s, r }))).filter(({ r }) => (!name || r.name === name) && (!status || r.status === status));
  const { start, perPage } = pageOf(ctx.query, 100);
  return {
    status: 200,
    body: {
      total_count: runs.length,
      check_runs: runs.slice(start, start + perPage).map(({ s, r }) => ({
        id: r.id,
        name: r.name,
        head_sha: s.headSha,
        status: r.status,
        conclusion: r.conclusion,
        details_url: r.detailsUrl ?? null,
        html_url: `${baseUrl}/${repo.fullName}/runs/${r.id}`,
        app: s.app,
        check_suite: { id: s.id },
        output: { ...r.output, annotations_count: r.annotations.length, annotations_url: `${baseUrl}/repos/${repo.fullName}/check-runs/${r.id}/annotations` },
      })),
    },
  };
};

const statusJson = (s: CommitStatusState) => ({
  context: s.context,
  state: s.state,
  description: s.description,
  target_url: s.targetUrl,
  created_at: iso(s.createdAt),
});

const statuses: Checked = (ctx, sha) => ({ status: 200, body: [...ctx.repo.statuses.filter((s) => s.sha === sha)].reverse().map(statusJson) });

/** The combined status: the latest status of each context, failing if any fails, pending if any is pending or none exists. */
const combinedStatus: Checked = (ctx, sha) => {
  const latest = new Map<string, CommitStatusState>();
  for (const s of ctx.repo.statuses.filter((x) => x.sha === sha)) latest.set(s.context, s);
  const values = [...latest.values()];
  const state = values.some((s) => s.state === 'error' || s.state === 'failure')
    ? 'failure'
    : values.length === 0 || values.some((s) => s.state === 'pending')
      ? 'pending'
      : 'success';
  return {
    status: 200,
    body: { state, sha, total_count: values.length, statuses: values.map(statusJson), repository: { id: ctx.repo.id, full_name: ctx.repo.fullName } },
  };
};

const annotations: RepoRoute['handle'] = (ctx, m) => {
  const id = Number(m[1]);
  const run = ctx.repo.checkSuites.flatMap((s) => s.runs).find((r) => r.id === id);
  if (!run) return notFound;
  const { start, perPage } = pageOf(ctx.query, 100);
  return {
    status: 200,
    body: run.annotations.slice(start, start + perPage).map((a) => ({
      path: a.path,
      blob_href: `${ctx.baseUrl}/${ctx.repo.fullName}/blob/HEAD/${a.path}`,
      start_line: a.startLine,
      end_line: a.endLine,
      start_column: null,
      end_column: null,
      annotation_level: a.level,
      title: a.title ?? null,
      message: a.message,
      raw_details: null,
    })),
  };
};

const commit: RepoRoute['handle'] = async (ctx, m) => {
  const sha = await ctx.repo.git.resolveCommitish(decodeURIComponent(m[1]));
  const json = sha ? await gitCommitJson(ctx, sha) : undefined;
  if (!sha || !json) return unprocessable(`No commit found for SHA: ${decodeURIComponent(m[1])}`);
  return {
    status: 200,
    body: {
      sha,
      node_id: json.node_id,
      commit: { tree: json.tree, message: json.message, author: json.author, committer: json.committer, verification: json.verification },
      parents: json.parents,
    },
  };
};

const branch: RepoRoute['handle'] = async (ctx, m) => {
  const name = decodeURIComponent(m[1]);
  const sha = await ctx.repo.git.readRef(`refs/heads/${name}`);
  const json = sha ? await gitCommitJson(ctx, sha) : undefined;
  if (!sha || !json) return { status: 404, body: { message: 'Branch not found' } };
  return {
    status: 200,
    body: { name, protected: false, commit: { sha, commit: { tree: json.tree, message: json.message, author: json.author, committer: json.committer } } },
  };
};

/**
 * `GET /compare/{base}...{head}`: how `head` stands to `base`, as GitHub answers it (`ahead`:
 * base is an ancestor of head; `behind`; `identical`; `diverged`), with the counts. Commits are
 * not listed (callers ask for the status).
 */
const compare: RepoRoute['handle'] = async (ctx, m) => {
  const [baseRef, headRef] = [decodeURIComponent(m[1]), decodeURIComponent(m[2])];
  const base = await ctx.repo.git.resolveCommitish(baseRef);
  const head = await ctx.repo.git.resolveCommitish(headRef);
  if (!base || !head) return notFound;
  const aheadBy = await ctx.repo.git.countCommits(base, head);
  const behindBy = await ctx.repo.git.countCommits(head, base);
  const status = aheadBy === 0 && behindBy === 0 ? 'identical' : behindBy === 0 ? 'ahead' : aheadBy === 0 ? 'behind' : 'diverged';
  return { status: 200, body: { status, ahead_by: aheadBy, behind_by: behindBy, total_commits: aheadBy, commits: [] } };
};

const contentsRead = [['contents', 'read']] as [string, 'read'][];

/**
 * `GET /actions/jobs/{job_id}/logs`: GitHub answers 302 with a short-lived download URL of the
 * job's plain-text log (for an Actions check run, the check run id is the job id); 404 otherwise.
 */
const jobLogs: RepoRoute['handle'] = (ctx, m) => {
  const id = Number(m[1]);
  const run = ctx.repo.checkSuites
    .filter((s) => s.app.slug === 'github-actions')
    .flatMap((s) => s.runs)
    .find((r) => r.id === id);
  if (!run) return notFound;
  // GitHub's description documents only the redirect; a job without a log is answered as unknown.
  if (run.log === undefined) return notFound;
  const location = `${ctx.baseUrl}/_job-logs/${encodeURIComponent(ctx.repo.fullName)}/${id}?sig=${jobLogSignature(id)}`;
  return { status: 302, headers: { location } };
};

/** Commits, branches, and the checks and statuses on a commit. */
export const COMMIT_ROUTES: RepoRoute[] = [
  { method: 'GET', path: /^\/commits\/([^/]+)\/check-suites$/, handle: onCommit('checks', checkSuites) },
  { method: 'GET', path: /^\/commits\/([^/]+)\/check-runs$/, handle: onCommit('checks', checkRuns) },
  { method: 'GET', path: /^\/commits\/([^/]+)\/status$/, handle: onCommit('statuses', combinedStatus) },
  { method: 'GET', path: /^\/commits\/([^/]+)\/statuses$/, handle: onCommit('statuses', statuses) },
  { method: 'GET', path: /^\/check-runs\/(\d+)\/annotations$/, handle: guarded([['checks', 'read']], annotations) },
  { method: 'GET', path: /^\/commits\/([^/]+)$/, handle: guarded(contentsRead, commit) },
  { method: 'GET', path: /^\/branches\/(.+)$/, handle: guarded(contentsRead, branch) },
  { method: 'GET', path: /^\/compare\/(.+?)\.\.\.(.+)$/, handle: guarded(contentsRead, compare) },
  { method: 'GET', path: /^\/actions\/jobs\/(\d+)\/logs$/, handle: guarded([['actions', 'read']], jobLogs) },
];
