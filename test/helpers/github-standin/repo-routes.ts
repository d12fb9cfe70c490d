import { grants, type MintedToken } from './auth.js';
import { formatIsoDate, parseIsoDate, typeOfMode, type Signature } from './git-objects.js';
import type { IssueState, PullState, RepoPermission, RepoState, ReviewState, StandinUser } from './repo-state.js';
import { buildTree, UnprocessableError, type TreeRequestEntry } from './tree-builder.js';

/** The contents API inlines files up to 1 MB (GitHub's documented limit); larger files up to 100 MB come without content. */
const CONTENTS_INLINE_MAX_BYTES = 1024 * 1024;
const CONTENTS_MAX_BYTES = 100 * 1024 * 1024;

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  tokenMinted?: MintedToken;
}

export interface RouteContext {
  method: string;
  /** The path after `/repos/{owner}/{repo}`, still URL-encoded. */
  rest: string;
  query: URLSearchParams;
  body: unknown;
  repo: RepoState;
  baseUrl: string;
  now(): number;
  nextId(): number;
  botUser: StandinUser;
  users: Map<string, StandinUser>;
  user(login: string): StandinUser;
  permissions: Record<string, string>;
  tokenId?: string;
  anonymous: boolean;
}

const notFound: RouteResult = { status: 404, body: { message: 'Not Found' } };
const forbidden: RouteResult = { status: 403, body: { message: 'Resource not accessible by integration' } };

function iso(ms: number): string {
  return formatIsoDate(Math.floor(ms / 1000));
}

/** The permission check GitHub applies to an installation token (any of `options` suffices). */
function need(ctx: RouteContext, ...options: [string, 'read' | 'write'][]): RouteResult | undefined {
  if (ctx.anonymous) {
    return options.every(([, level]) => level === 'read') ? undefined : { status: 401, body: { message: 'Requires authentication' } };
  }
  return options.some(([p, l]) => grants(ctx.permissions, p, l)) ? undefined : forbidden;
}

function userJson(u: StandinUser) {
  return { login: u.login, id: u.id, type: u.type };
}

async function repoJson(ctx: RouteContext) {
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
    archived: false,
    fork: false,
  };
}

const ROLE_TO_PERMISSION: Record<RepoPermission, string> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
  none: 'none',
};

function issueJson(ctx: RouteContext, issue: IssueState, pull?: PullState) {
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

async function pullJson(ctx: RouteContext, p: PullState) {
  const headSha = await ctx.repo.git.readRef(`refs/heads/${p.head}`);
  const baseSha = await ctx.repo.git.readRef(`refs/heads/${p.base}`);
  return {
    id: ctx.repo.id * 100_000 + p.number,
    node_id: `PR_${ctx.repo.id}_${p.number}`,
    number: p.number,
    state: p.state,
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

function reviewCommentJson(ctx: RouteContext, number: number, review: ReviewState, c: ReviewState['comments'][number]) {
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

function commentJson(ctx: RouteContext, c: { id: number; issueNumber: number; body: string; user: StandinUser; createdAt: number; updatedAt: number }) {
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

function signatureJson(s: Signature) {
  return { name: s.name, email: s.email, date: formatIsoDate(s.timestamp) };
}

async function gitCommitJson(ctx: RouteContext, sha: string) {
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

function refJson(ctx: RouteContext, ref: string, sha: string) {
  return {
    ref,
    node_id: `REF_${ref}`,
    url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/git/${ref}`,
    object: { sha, type: 'commit', url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/git/commits/${sha}` },
  };
}

function obj(body: unknown): Record<string, unknown> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

function signatureFrom(value: unknown, fallback: Signature): Signature {
  const v = obj(value);
  if (typeof v.name !== 'string' || typeof v.email !== 'string') throw new UnprocessableError('author and committer need name and email');
  const date = typeof v.date === 'string' ? parseIsoDate(v.date) : { timestamp: fallback.timestamp, tz: fallback.tz };
  return { name: v.name, email: v.email, ...date };
}

function base64Lines(bytes: Buffer): string {
  return (bytes.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n';
}

/** Routes under `/repos/{owner}/{repo}`; the caller has already checked the token's repository. */
export async function handleRepoRoute(ctx: RouteContext): Promise<RouteResult> {
  const { method, rest, repo } = ctx;
  const body = obj(ctx.body);
  const git = repo.git;
  let m: RegExpExecArray | null;

  if (rest === '' && method === 'GET') return need(ctx, ['metadata', 'read']) ?? { status: 200, body: await repoJson(ctx) };

  if ((m = /^\/collaborators\/([^/]+)\/permission$/.exec(rest)) && method === 'GET') {
    const denied = need(ctx, ['metadata', 'read']);
    if (denied) return denied;
    const login = decodeURIComponent(m[1]);
    const user = ctx.users.get(login.toLowerCase());
    if (!user) return { status: 404, body: { message: `${login} is not a user` } };
    const role = repo.collaborators.get(login.toLowerCase()) ?? (repo.private ? 'none' : 'read');
    return { status: 200, body: { permission: ROLE_TO_PERMISSION[role], role_name: role, user: userJson(user) } };
  }

  if ((m = /^\/contents(?:\/(.*))?$/.exec(rest)) && method === 'GET') {
    const denied = need(ctx, ['contents', 'read']);
    if (denied) return denied;
    const path = decodeURIComponent(m[1] ?? '').replace(/^\/+|\/+$/g, '');
    const commit = await git.resolveCommitish(ctx.query.get('ref') ?? repo.defaultBranch);
    if (!commit) return { status: 404, body: { message: `No commit found for the ref ${ctx.query.get('ref') ?? repo.defaultBranch}` } };
    const entry = await git.entryAt(commit, path);
    if (!entry) return notFound;
    const name = path.split('/').pop() ?? '';
    if (entry.mode === '40000') {
      const entries = (await git.readTree(entry.sha)) ?? [];
      return {
        status: 200,
        body: entries.map((e) => ({
          type: e.mode === '40000' ? 'dir' : e.mode === '160000' ? 'submodule' : e.mode === '120000' ? 'symlink' : 'file',
          name: e.name,
          path: path ? `${path}/${e.name}` : e.name,
          sha: e.sha,
        })),
      };
    }
    if (entry.mode === '160000') return { status: 200, body: { type: 'submodule', name, path, sha: entry.sha } };
    const bytes = (await git.readRaw('blob', entry.sha)) as Buffer;
    if (entry.mode === '120000') return { status: 200, body: { type: 'symlink', name, path, sha: entry.sha, target: bytes.toString(), size: bytes.length } };
    // GitHub's contents API: files over 1 MB come without content (`encoding: "none"`, `content: ""`);
    // over 100 MB it refuses with 403 `too_large`.
    if (bytes.length > CONTENTS_MAX_BYTES) return { status: 403, body: { message: 'This API returns blobs up to 100 MB in size. The requested blob is too large to fetch via the API.', errors: [{ resource: 'Blob', field: 'data', code: 'too_large' }] } };
    if (bytes.length > CONTENTS_INLINE_MAX_BYTES) return { status: 200, body: { type: 'file', encoding: 'none', size: bytes.length, name, path, sha: entry.sha, content: '' } };
    return { status: 200, body: { type: 'file', encoding: 'base64', size: bytes.length, name, path, sha: entry.sha, content: base64Lines(bytes) } };
  }

  // Issues and comments.
  if ((m = /^\/issues\/comments\/(\d+)$/.exec(rest))) {
    const comment = repo.comments.get(Number(m[1]));
    if (method === 'GET') return need(ctx, ['issues', 'read'], ['pull_requests', 'read']) ?? (comment ? { status: 200, body: commentJson(ctx, comment) } : notFound);
    if (method === 'PATCH') {
      const denied = need(ctx, ['issues', 'write'], ['pull_requests', 'write']);
      if (denied) return denied;
      if (!comment) return notFound;
      if (typeof body.body !== 'string') return { status: 422, body: { message: 'body is missing' } };
      comment.body = body.body;
      comment.updatedAt = ctx.now();
      return { status: 200, body: commentJson(ctx, comment) };
    }
  }
  if (rest === '/issues' && method === 'GET') {
    // Lists issues and pull requests (GitHub treats every pull request as an issue).
    const denied = need(ctx, ['issues', 'read']);
    if (denied) return denied;
    const state = ctx.query.get('state') ?? 'open';
    const creator = ctx.query.get('creator');
    const all = [
      ...[...repo.issues.values()].map((issue) => ({ issue, pull: undefined as PullState | undefined })),
      ...[...repo.pulls.values()].map((pull) => ({
        issue: { number: pull.number, title: pull.title, body: pull.body, state: pull.state, user: pull.user, labels: pull.labels ?? [], createdAt: pull.createdAt, updatedAt: pull.updatedAt } as IssueState,
        pull,
      })),
    ].filter(({ issue }) => (state === 'all' || issue.state === state) && (!creator || issue.user.login === creator));
    const perPage = Number(ctx.query.get('per_page') ?? 30);
    const page = Number(ctx.query.get('page') ?? 1);
    const sorted = all.sort((a, b) => b.issue.number - a.issue.number).slice((page - 1) * perPage, page * perPage);
    return { status: 200, body: sorted.map(({ issue, pull }) => issueJson(ctx, issue, pull)) };
  }
  if ((m = /^\/issues\/(\d+)(\/comments|\/labels)?$/.exec(rest))) {
    const number = Number(m[1]);
    const pull = repo.pulls.get(number);
    const issue =
      repo.issues.get(number) ??
      (pull ? { number, title: pull.title, body: pull.body, state: pull.state, user: pull.user, labels: pull.labels ?? [], createdAt: pull.createdAt, updatedAt: pull.updatedAt } : undefined);
    const readDenied = need(ctx, ['issues', 'read'], ...(pull ? ([['pull_requests', 'read']] as [string, 'read'][]) : []));
    const writeDenied = need(ctx, ['issues', 'write'], ...(pull ? ([['pull_requests', 'write']] as [string, 'write'][]) : []));
    if (m[2] === undefined && method === 'GET') return readDenied ?? (issue ? { status: 200, body: issueJson(ctx, issue, pull) } : notFound);
    if (m[2] === '/comments' && method === 'GET') {
      if (readDenied) return readDenied;
      if (!issue) return notFound;
      const list = [...repo.comments.values()].filter((c) => c.issueNumber === number).sort((a, b) => a.id - b.id);
      const perPage = Number(ctx.query.get('per_page') ?? 30);
      const page = Number(ctx.query.get('page') ?? 1);
      return { status: 200, body: list.slice((page - 1) * perPage, page * perPage).map((c) => commentJson(ctx, c)) };
    }
    if (m[2] === '/comments' && method === 'POST') {
      if (writeDenied) return writeDenied;
      if (!issue) return notFound;
      if (typeof body.body !== 'string') return { status: 422, body: { message: 'body is missing' } };
      const now = ctx.now();
      const comment = { id: ctx.nextId(), issueNumber: number, body: body.body, user: ctx.botUser, createdAt: now, updatedAt: now };
      repo.comments.set(comment.id, comment);
      return { status: 201, body: commentJson(ctx, comment) };
    }
    if (m[2] === '/labels' && method === 'POST') {
      if (writeDenied) return writeDenied;
      // GitHub labels pull requests through the issues API too.
      const stored = repo.issues.get(number) ?? (pull ? { labels: (pull.labels ??= []), updatedAt: pull.updatedAt } : undefined);
      if (!stored) return notFound;
      const labels = Array.isArray(ctx.body) ? ctx.body : Array.isArray(body.labels) ? body.labels : undefined;
      if (!labels || labels.some((l) => typeof l !== 'string')) return { status: 422, body: { message: 'labels must be strings' } };
      for (const l of labels as string[]) if (!stored.labels.includes(l)) stored.labels.push(l);
      stored.updatedAt = ctx.now();
      if (pull && !repo.issues.has(number)) pull.updatedAt = stored.updatedAt;
      return { status: 200, body: stored.labels.map((name, i) => ({ id: i + 1, name, color: 'ededed', default: false })) };
    }
  }

  // Git Data.
  if (rest === '/git/blobs' && method === 'POST') {
    const denied = need(ctx, ['contents', 'write']);
    if (denied) return denied;
    if (typeof body.content !== 'string') return { status: 422, body: { message: 'content is missing' } };
    const encoding = body.encoding ?? 'utf-8';
    if (encoding !== 'utf-8' && encoding !== 'utf8' && encoding !== 'base64') return { status: 422, body: { message: `encoding ${String(encoding)} is not supported` } };
    const bytes = encoding === 'base64' ? Buffer.from(body.content, 'base64') : Buffer.from(body.content, 'utf8');
    const sha = await git.writeBlob(bytes);
    return { status: 201, body: { sha, url: `${ctx.baseUrl}/repos/${repo.fullName}/git/blobs/${sha}` } };
  }
  if ((m = /^\/git\/blobs\/([0-9a-f]{40})$/.exec(rest)) && method === 'GET') {
    const denied = need(ctx, ['contents', 'read']);
    if (denied) return denied;
    const bytes = await git.readRaw('blob', m[1]);
    if (!bytes) return notFound;
    return { status: 200, body: { sha: m[1], size: bytes.length, encoding: 'base64', content: base64Lines(bytes), node_id: `B_${m[1]}` } };
  }
  if (rest === '/git/trees' && method === 'POST') {
    const denied = need(ctx, ['contents', 'write']);
    if (denied) return denied;
    if (!Array.isArray(body.tree)) return { status: 422, body: { message: 'tree is missing' } };
    const sha = await buildTree(git, typeof body.base_tree === 'string' ? body.base_tree : undefined, body.tree as TreeRequestEntry[]);
    return { status: 201, body: await treeJson(ctx, sha, false) };
  }
  if ((m = /^\/git\/trees\/([^/]+)$/.exec(rest)) && method === 'GET') {
    const denied = need(ctx, ['contents', 'read']);
    if (denied) return denied;
    const ref = decodeURIComponent(m[1]);
    let sha = /^[0-9a-f]{40}$/.test(ref) && (await git.typeOf(ref)) === 'tree' ? ref : undefined;
    if (!sha) {
      const commit = await git.resolveCommitish(ref);
      sha = commit ? (await git.readCommit(commit))?.tree : undefined;
    }
    if (!sha) return notFound;
    const recursive = ctx.query.has('recursive') && !['0', 'false'].includes(ctx.query.get('recursive') ?? '');
    return { status: 200, body: await treeJson(ctx, sha, recursive) };
  }
  if (rest === '/git/commits' && method === 'POST') {
    const denied = need(ctx, ['contents', 'write']);
    if (denied) return denied;
    if (typeof body.message !== 'string' || typeof body.tree !== 'string') return { status: 422, body: { message: 'message and tree are required' } };
    if ((await git.typeOf(body.tree)) !== 'tree') return { status: 422, body: { message: 'Tree SHA does not exist' } };
    const parents = Array.isArray(body.parents) ? (body.parents as unknown[]) : [];
    for (const p of parents) {
      if (typeof p !== 'string' || (await git.typeOf(p)) !== 'commit') return { status: 422, body: { message: 'Parent SHA does not exist or is not a commit object' } };
    }
    const now = Math.floor(ctx.now() / 1000);
    const bot: Signature = { name: ctx.botUser.login, email: `${ctx.botUser.id}+${ctx.botUser.login}@users.noreply.github.com`, timestamp: now, tz: '+0000' };
    const gitHub: Signature = { name: 'GitHub', email: 'noreply@github.com', timestamp: now, tz: '+0000' };
    const customAuthor = body.author !== undefined && body.author !== null;
    const customCommitter = body.committer !== undefined && body.committer !== null;
    const author = customAuthor ? signatureFrom(body.author, bot) : bot;
    const committer = customCommitter ? signatureFrom(body.committer, author) : customAuthor ? author : gitHub;
    const sha = await git.writeCommit({ tree: body.tree, parents: parents as string[], author, committer, message: body.message });
    repo.createdCommits.push({ sha, customAuthor, customCommitter, tokenId: ctx.tokenId });
    return { status: 201, body: await gitCommitJson(ctx, sha) };
  }
  if ((m = /^\/git\/commits\/([0-9a-f]{40})$/.exec(rest)) && method === 'GET') {
    const denied = need(ctx, ['contents', 'read']);
    if (denied) return denied;
    const json = await gitCommitJson(ctx, m[1]);
    return json ? { status: 200, body: json } : notFound;
  }
  if (rest === '/git/refs' && method === 'POST') {
    const denied = need(ctx, ['contents', 'write']);
    if (denied) return denied;
    const ref = body.ref;
    const sha = body.sha;
    if (typeof ref !== 'string' || !/^refs\/[^/]+\/./.test(ref) || ref.split('/').length < 3) {
      return { status: 422, body: { message: 'Reference name must start with \'refs/\' and have at least two slashes.' } };
    }
    if (typeof sha !== 'string' || (await git.typeOf(sha)) !== 'commit') return { status: 422, body: { message: 'Object does not exist' } };
    if (!(await git.updateRef(ref, sha, '0'.repeat(40)))) return { status: 422, body: { message: 'Reference already exists' } };
    return { status: 201, body: refJson(ctx, ref, sha) };
  }
  if ((m = /^\/git\/(ref|refs|matching-refs)\/(.+)$/.exec(rest))) {
    const kind = m[1];
    const ref = `refs/${decodeURIComponent(m[2])}`;
    if (method === 'GET') {
      const denied = need(ctx, ['contents', 'read']);
      if (denied) return denied;
      if (kind === 'matching-refs') return { status: 200, body: (await git.listRefs(ref)).map((r) => refJson(ctx, r.ref, r.sha)) };
      const sha = await git.readRef(ref);
      if (sha && (await git.listRefs(ref)).some((r) => r.ref === ref)) return { status: 200, body: refJson(ctx, ref, sha) };
      if (kind === 'refs') {
        const list = await git.listRefs(`${ref}/`);
        if (list.length > 0) return { status: 200, body: list.map((r) => refJson(ctx, r.ref, r.sha)) };
      }
      return notFound;
    }
    if (kind === 'refs' && method === 'PATCH') {
      const denied = need(ctx, ['contents', 'write']);
      if (denied) return denied;
      const current = await git.readRef(ref);
      if (!current || !(await git.listRefs(ref)).some((r) => r.ref === ref)) return { status: 422, body: { message: 'Reference does not exist' } };
      const sha = body.sha;
      if (typeof sha !== 'string' || (await git.typeOf(sha)) !== 'commit') return { status: 422, body: { message: 'Object does not exist' } };
      if (body.force !== true && !(await git.isAncestor(current, sha))) return { status: 422, body: { message: 'Update is not a fast forward' } };
      if (!(await git.updateRef(ref, sha, current))) return { status: 422, body: { message: 'Reference cannot be updated' } };
      return { status: 200, body: refJson(ctx, ref, sha) };
    }
    if (kind === 'refs' && method === 'DELETE') {
      const denied = need(ctx, ['contents', 'write']);
      if (denied) return denied;
      if (!(await git.readRef(ref))) return { status: 422, body: { message: 'Reference does not exist' } };
      await git.deleteRef(ref);
      return { status: 204 };
    }
  }

  // Checks and statuses (before the generic commit route).
  if ((m = /^\/commits\/([^/]+)\/(check-suites|check-runs|status|statuses)$/.exec(rest)) && method === 'GET') {
    const which = m[2];
    const denied = which.startsWith('check') ? need(ctx, ['checks', 'read']) : need(ctx, ['statuses', 'read']);
    if (denied) return denied;
    const sha = await git.resolveCommitish(decodeURIComponent(m[1]));
    if (!sha) return { status: 422, body: { message: `No commit found for SHA: ${decodeURIComponent(m[1])}` } };
    const suites = repo.checkSuites.filter((s) => s.headSha === sha);
    if (which === 'check-suites') {
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
    }
    if (which === 'check-runs') {
      const name = ctx.query.get('check_name');
      const status = ctx.query.get('status');
      const runs = suites.flatMap((s) => s.runs.map((r) => ({ s, r }))).filter(({ r }) => (!name || r.name === name) && (!status || r.status === status));
      const perPage = Math.min(100, Number(ctx.query.get('per_page') ?? 30));
      const start = (Number(ctx.query.get('page') ?? 1) - 1) * perPage;
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
            html_url: `${ctx.baseUrl}/${repo.fullName}/runs/${r.id}`,
            app: s.app,
            check_suite: { id: s.id },
            output: {
              ...r.output,
              annotations_count: r.annotations.length,
              annotations_url: `${ctx.baseUrl}/repos/${repo.fullName}/check-runs/${r.id}/annotations`,
            },
          })),
        },
      };
    }
    const statuses = repo.statuses.filter((s) => s.sha === sha);
    const latest = new Map<string, (typeof statuses)[number]>();
    for (const s of statuses) latest.set(s.context, s);
    const values = [...latest.values()];
    if (which === 'statuses') return { status: 200, body: [...statuses].reverse().map((s) => ({ context: s.context, state: s.state, description: s.description, target_url: s.targetUrl, created_at: iso(s.createdAt) })) };
    const state = values.some((s) => s.state === 'error' || s.state === 'failure')
      ? 'failure'
      : values.length === 0 || values.some((s) => s.state === 'pending')
        ? 'pending'
        : 'success';
    return {
      status: 200,
      body: {
        state,
        sha,
        total_count: values.length,
        statuses: values.map((s) => ({ context: s.context, state: s.state, description: s.description, target_url: s.targetUrl, created_at: iso(s.createdAt) })),
        repository: { id: repo.id, full_name: repo.fullName },
      },
    };
  }
  if ((m = /^\/check-runs\/(\d+)\/annotations$/.exec(rest)) && method === 'GET') {
    const denied = need(ctx, ['checks', 'read']);
    if (denied) return denied;
    const id = Number(m[1]);
    const run = repo.checkSuites.flatMap((s) => s.runs).find((r) => r.id === id);
    if (!run) return notFound;
    const perPage = Math.min(100, Number(ctx.query.get('per_page') ?? 30));
    const start = (Number(ctx.query.get('page') ?? 1) - 1) * perPage;
    return {
      status: 200,
      body: run.annotations.slice(start, start + perPage).map((a) => ({
        path: a.path,
        blob_href: `${ctx.baseUrl}/${repo.fullName}/blob/HEAD/${a.path}`,
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
  }
  if ((m = /^\/commits\/([^/]+)$/.exec(rest)) && method === 'GET') {
    const denied = need(ctx, ['contents', 'read']);
    if (denied) return denied;
    const sha = await git.resolveCommitish(decodeURIComponent(m[1]));
    const json = sha ? await gitCommitJson(ctx, sha) : undefined;
    if (!sha || !json) return { status: 422, body: { message: `No commit found for SHA: ${decodeURIComponent(m[1])}` } };
    return { status: 200, body: { sha, node_id: json.node_id, commit: { tree: json.tree, message: json.message, author: json.author, committer: json.committer, verification: json.verification }, parents: json.parents } };
  }
  if ((m = /^\/branches\/(.+)$/.exec(rest)) && method === 'GET') {
    const denied = need(ctx, ['contents', 'read']);
    if (denied) return denied;
    const name = decodeURIComponent(m[1]);
    const sha = await git.readRef(`refs/heads/${name}`);
    const json = sha ? await gitCommitJson(ctx, sha) : undefined;
    if (!sha || !json) return { status: 404, body: { message: 'Branch not found' } };
    return { status: 200, body: { name, protected: false, commit: { sha, commit: { tree: json.tree, message: json.message, author: json.author, committer: json.committer } } } };
  }

  // Pull requests.
  if (rest === '/pulls' && method === 'POST') {
    const denied = need(ctx, ['pull_requests', 'write']);
    if (denied) return denied;
    if (typeof body.head !== 'string' || typeof body.base !== 'string') return { status: 422, body: { message: 'head and base are required' } };
    if (typeof body.title !== 'string' || body.title === '') return { status: 422, body: { message: 'title is required' } };
    const [headOwner, head] = body.head.includes(':') ? body.head.split(':', 2) : [repo.owner, body.head];
    if (headOwner.toLowerCase() !== repo.owner.toLowerCase() || !(await git.readRef(`refs/heads/${head}`))) {
      return { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }] } };
    }
    if (!(await git.readRef(`refs/heads/${body.base}`))) {
      return { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field: 'base', code: 'invalid' }] } };
    }
    const existing = [...repo.pulls.values()].find((p) => p.state === 'open' && p.head === head && p.base === body.base);
    if (existing) {
      return { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${repo.owner}:${head}.` }] } };
    }
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
  }
  if (rest === '/pulls' && method === 'GET') {
    const denied = need(ctx, ['pull_requests', 'read']);
    if (denied) return denied;
    const state = ctx.query.get('state') ?? 'open';
    const headFilter = ctx.query.get('head');
    const baseFilter = ctx.query.get('base');
    const list = [...repo.pulls.values()].filter((p) => {
      if (state !== 'all' && p.state !== state) return false;
      if (headFilter) {
        const [o, b] = headFilter.includes(':') ? headFilter.split(':', 2) : [headFilter, undefined];
        if (o.toLowerCase() !== p.headOwner.toLowerCase() || (b !== undefined && b !== p.head)) return false;
      }
      return !baseFilter || p.base === baseFilter;
    });
    return { status: 200, body: await Promise.all(list.sort((a, b) => b.number - a.number).map((p) => pullJson(ctx, p))) };
  }
  if ((m = /^\/pulls\/(\d+)\/reviews\/(\d+)\/comments$/.exec(rest)) && method === 'GET') {
    const denied = need(ctx, ['pull_requests', 'read']);
    if (denied) return denied;
    const [number, reviewId] = [Number(m[1]), Number(m[2])];
    const review = repo.pulls.get(number)?.reviews?.find((r) => r.id === reviewId);
    if (!review) return notFound;
    const perPage = Math.min(100, Number(ctx.query.get('per_page') ?? 30));
    return { status: 200, body: review.comments.slice(0, perPage).map((c) => reviewCommentJson(ctx, number, review, c)) };
  }
  if ((m = /^\/pulls\/(\d+)(\/requested_reviewers)?$/.exec(rest))) {
    const pull = repo.pulls.get(Number(m[1]));
    if (m[2] === undefined && method === 'GET') return need(ctx, ['pull_requests', 'read']) ?? (pull ? { status: 200, body: await pullJson(ctx, pull) } : notFound);
    const denied = need(ctx, ['pull_requests', 'write']);
    if (m[2] === undefined && method === 'PATCH') {
      if (denied) return denied;
      if (!pull) return notFound;
      if (typeof body.title === 'string') pull.title = body.title;
      if (typeof body.body === 'string') pull.body = body.body;
      if (body.state === 'open' || body.state === 'closed') pull.state = body.state;
      if (typeof body.base === 'string') {
        if (!(await git.readRef(`refs/heads/${body.base}`))) return { status: 422, body: { message: 'Validation Failed' } };
        pull.base = body.base;
      }
      pull.updatedAt = ctx.now();
      return { status: 200, body: await pullJson(ctx, pull) };
    }
    if (m[2] === '/requested_reviewers' && method === 'POST') {
      if (denied) return denied;
      if (!pull) return notFound;
      const reviewers = Array.isArray(body.reviewers) ? (body.reviewers as unknown[]).map(String) : [];
      for (const r of reviewers) {
        const role = repo.collaborators.get(r.toLowerCase());
        if (!role || role === 'none') return { status: 422, body: { message: 'Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the repository.' } };
      }
      for (const r of reviewers) if (!pull.requestedReviewers.includes(r)) pull.requestedReviewers.push(r);
      pull.updatedAt = ctx.now();
      return { status: 201, body: await pullJson(ctx, pull) };
    }
  }

  return notFound;
}

async function treeJson(ctx: RouteContext, sha: string, recursive: boolean) {
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
