import { formatIsoDate, typeOfMode, type Signature } from './git-objects.js';
import type { RouteContext } from './route-context.js';
import type { IssueState, PullState, RepoPermission, ReviewState, StandinUser } from './repo-state.js';

/** The JSON shapes the stand-in answers with, as GitHub's REST API sends them. */

export function iso(ms: number): string {
  return formatIsoDate(Math.floor(ms / 1000));
}

export function userJson(u: StandinUser) {
  return { login: u.login, id: u.id, type: u.type };
}

export async function repoJson(ctx: Pick<RouteContext, 'repo' | 'baseUrl'>) {
  const r = ctx.repo;
  return {
    id: r.id,
    node_id: `R_${r.id}`,
    name: r.name,
    full_name: r.fullName,
    private: r.private,
    visibility: r.private ? 'private' : 'public',
    owner: { login: r.owner, type: 'Organization' },
    html_url: `${ctx.baseUrl}/${r.fullName}`,
    url: `${ctx.baseUrl}/repos/${r.fullName}`,
    clone_url: `${ctx.baseUrl}/${r.fullName}.git`,
    default_branch: r.defaultBranch,
    size: r.sizeKb ?? (await r.git.sizeKb()),
    archived: r.archived,
    fork: r.fork,
    topics: r.topics,
    language: r.language,
  };
}

export const ROLE_TO_PERMISSION: Record<RepoPermission, string> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
  none: 'none',
};

export function issueJson(ctx: RouteContext, issue: IssueState, pull?: PullState) {
  return {
    id: ctx.repo.id * 100_000 + issue.number,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    user: userJson(issue.user),
    labels: issue.labels.map((name, i) => ({ id: i + 1, name, color: 'ededed', default: false })),
    created_at: iso(issue.createdAt),
    updated_at: iso(issue.updatedAt),
    html_url: `${ctx.baseUrl}/${ctx.repo.fullName}/issues/${issue.number}`,
    ...(pull ? { pull_request: { url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/pulls/${issue.number}` } } : {}),
  };
}

export async function pullJson(ctx: RouteContext, p: PullState) {
  const headSha = await ctx.repo.git.readRef(`refs/heads/${p.head}`);
  const baseSha = await ctx.repo.git.readRef(`refs/heads/${p.base}`);
  return {
    id: ctx.repo.id * 100_000 + p.number,
    node_id: `PR_${ctx.repo.id}_${p.number}`,
    number: p.number,
    state: p.state,
    merged: p.merged === true,
    merged_at: p.merged ? iso(p.updatedAt) : null,
    draft: p.draft,
    title: p.title,
    body: p.body,
    user: userJson(p.user),
    html_url: `${ctx.baseUrl}/${ctx.repo.fullName}/pull/${p.number}`,
    url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/pulls/${p.number}`,
    head: { ref: p.head, sha: headSha ?? null, label: `${p.headOwner}:${p.head}`, repo: { id: ctx.repo.id, full_name: ctx.repo.fullName } },
    base: { ref: p.base, sha: baseSha ?? null, label: `${ctx.repo.owner}:${p.base}`, repo: { id: ctx.repo.id, full_name: ctx.repo.fullName } },
    requested_reviewers: p.requestedReviewers.map((l) => userJson(ctx.user(l))),
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
  };
}

export function reviewCommentJson(ctx: RouteContext, number: number, review: ReviewState, c: ReviewState['comments'][number]) {
  const url = `${ctx.baseUrl}/repos/${ctx.repo.fullName}/pulls/comments/${c.id}`;
  const pullUrl = `${ctx.baseUrl}/repos/${ctx.repo.fullName}/pulls/${number}`;
  const html = `${ctx.baseUrl}/${ctx.repo.fullName}/pull/${number}#discussion_r${c.id}`;
  return {
    url,
    pull_request_review_id: review.id,
    id: c.id,
    node_id: `PRRC_${c.id}`,
    diff_hunk: '@@ -1 +1 @@',
    path: c.path,
    position: c.line,
    original_position: c.line,
    commit_id: review.commitId,
    original_commit_id: review.commitId,
    user: userJson(c.user),
    body: c.body,
    created_at: iso(review.submittedAt),
    updated_at: iso(review.submittedAt),
    html_url: html,
    pull_request_url: pullUrl,
    author_association: 'COLLABORATOR',
    _links: { self: { href: url }, html: { href: html }, pull_request: { href: pullUrl } },
    side: 'RIGHT',
    line: c.line,
    original_line: c.line,
    start_line: c.startLine ?? null,
    original_start_line: c.startLine ?? null,
    start_side: c.startLine ? 'RIGHT' : null,
    subject_type: 'line',
  };
}

export function commentJson(ctx: RouteContext, c: { id: number; issueNumber: number; body: string; user: StandinUser; createdAt: number; updatedAt: number }) {
  return {
    id: c.id,
    body: c.body,
    user: userJson(c.user),
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
    html_url: `${ctx.baseUrl}/${ctx.repo.fullName}/issues/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/issues/${c.issueNumber}`,
  };
}

export function signatureJson(s: Signature) {
  return { name: s.name, email: s.email, date: formatIsoDate(s.timestamp) };
}

export async function gitCommitJson(ctx: RouteContext, sha: string) {
  const c = await ctx.repo.git.readCommit(sha);
  if (!c) return undefined;
  const record = ctx.repo.createdCommits.find((x) => x.sha === sha);
  const signedByGitHub = record !== undefined && !record.customAuthor && !record.customCommitter;
  return {
    sha,
    node_id: `C_${sha}`,
    url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/git/commits/${sha}`,
    tree: { sha: c.tree, url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/git/trees/${c.tree}` },
    parents: c.parents.map((p) => ({ sha: p, url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/git/commits/${p}` })),
    message: c.message,
    author: signatureJson(c.author),
    committer: signatureJson(c.committer),
    // The stand-in cannot sign; it reports what GitHub would say for a commit it made itself.
    verification: { verified: signedByGitHub, reason: signedByGitHub ? 'valid' : 'unsigned', signature: null, payload: null },
  };
}

export function refJson(ctx: RouteContext, ref: string, sha: string) {
  return {
    ref,
    node_id: `REF_${ref}`,
    url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/git/${ref}`,
    object: { sha, type: 'commit', url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/git/commits/${sha}` },
  };
}

export function base64Lines(bytes: Buffer): string {
  return (bytes.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n';
}

export async function treeJson(ctx: RouteContext, sha: string, recursive: boolean) {
  const out: { path: string; mode: string; type: string; sha: string; size?: number; url: string }[] = [];
  const walk = async (treeSha: string, prefix: string) => {
    for (const e of (await ctx.repo.git.readTree(treeSha)) ?? []) {
      const type = typeOfMode(e.mode);
      const path = prefix ? `${prefix}/${e.name}` : e.name;
      const mode = e.mode === '40000' ? '040000' : e.mode;
      out.push({ path, mode, type, sha: e.sha, url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/git/${type}s/${e.sha}` });
      if (recursive && type === 'tree') await walk(e.sha, path);
    }
  };
  await walk(sha, '');
  return { sha, url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/git/trees/${sha}`, tree: out, truncated: false };
}

/** One submitted review, as `GET /pulls/{n}/reviews` lists it. */
export function reviewJson(ctx: RouteContext, number: number, review: ReviewState) {
  const html = `${ctx.baseUrl}/${ctx.repo.fullName}/pull/${number}#pullrequestreview-${review.id}`;
  const pullUrl = `${ctx.baseUrl}/repos/${ctx.repo.fullName}/pulls/${number}`;
  return {
    id: review.id,
    node_id: `PRR_${review.id}`,
    user: userJson(review.user),
    body: review.body,
    state: review.state ?? 'COMMENTED',
    html_url: html,
    pull_request_url: pullUrl,
    _links: { html: { href: html }, pull_request: { href: pullUrl } },
    submitted_at: iso(review.submittedAt),
    commit_id: review.commitId,
    author_association: 'COLLABORATOR',
  };
}
