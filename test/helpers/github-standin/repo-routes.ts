import { COMMIT_ROUTES } from './commit-routes.js';
import { GIT_DATA_ROUTES } from './git-data-routes.js';
import { ISSUE_ROUTES } from './issue-routes.js';
import { PULL_ROUTES } from './pull-routes.js';
import { base64Lines, repoJson, ROLE_TO_PERMISSION, userJson } from './repo-json.js';
import { guarded, notFound, obj, type RepoRoute, type RouteContext, type RouteResult } from './route-context.js';
import type { TreeEntry } from './git-objects.js';

export type { RouteContext, RouteResult } from './route-context.js';

/** The contents API inlines files up to 1 MB (GitHub's documented limit); larger files up to 100 MB come without content. */
const CONTENTS_INLINE_MAX_BYTES = 1024 * 1024;
const CONTENTS_MAX_BYTES = 100 * 1024 * 1024;

const CONTENTS_TYPE: Record<string, string> = { '40000': 'dir', '160000': 'submodule', '120000': 'symlink' };

const collaboratorPermission: RepoRoute['handle'] = (ctx, m) => {
  const login = decodeURIComponent(m[1]);
  const user = ctx.users.get(login.toLowerCase());
  if (!user) return { status: 404, body: { message: `${login} is not a user` } };
  const role = ctx.repo.collaborators.get(login.toLowerCase()) ?? (ctx.repo.private ? 'none' : 'read');
  return { status: 200, body: { permission: ROLE_TO_PERMISSION[role], role_name: role, user: userJson(user) } };
};

const contents: RepoRoute['handle'] = async (ctx, m) => {
  const { repo } = ctx;
  const path = decodeURIComponent(m[1] ?? '').replace(/^\/+|\/+$/g, '');
  const commit = await repo.git.resolveCommitish(ctx.query.get('ref') ?? repo.defaultBranch);
  if (!commit) return { status: 404, body: { message: `No commit found for the ref ${ctx.query.get('ref') ?? repo.defaultBranch}` } };
  const entry = await repo.git.entryAt(commit, path);
  if (!entry) return notFound;
  if (entry.mode === '40000') return { status: 200, body: await directoryListing(ctx, entry.sha, path) };
  return fileContents(ctx, entry, path);
};

async function directoryListing(ctx: RouteContext, sha: string, path: string) {
  const entries = (await ctx.repo.git.readTree(sha)) ?? [];
  return entries.map((e) => ({ type: CONTENTS_TYPE[e.mode] ?? 'file', name: e.name, path: path ? `${path}/${e.name}` : e.name, sha: e.sha }));
}

async function fileContents(ctx: RouteContext, entry: Pick<TreeEntry, 'mode' | 'sha'>, path: string): Promise<RouteResult> {
  const name = path.split('/').pop() ?? '';
  if (entry.mode === '160000') return { status: 200, body: { type: 'submodule', name, path, sha: entry.sha } };
  const bytes = (await ctx.repo.git.readRaw('blob', entry.sha)) as Buffer;
  if (entry.mode === '120000') return { status: 200, body: { type: 'symlink', name, path, sha: entry.sha, target: bytes.toString(), size: bytes.length } };
  // GitHub's contents API: files over 1 MB come without content (`encoding: "none"`, `content: ""`);
  // over 100 MB it refuses with 403 `too_large`.
  if (bytes.length > CONTENTS_MAX_BYTES)
    return {
      status: 403,
      body: {
        message: 'This API returns blobs up to 100 MB in size. The requested blob is too large to fetch via the API.',
        errors: [{ resource: 'Blob', field: 'data', code: 'too_large' }],
      },
    };
  if (bytes.length > CONTENTS_INLINE_MAX_BYTES)
    return { status: 200, body: { type: 'file', encoding: 'none', size: bytes.length, name, path, sha: entry.sha, content: '' } };
  return { status: 200, body: { type: 'file', encoding: 'base64', size: bytes.length, name, path, sha: entry.sha, content: base64Lines(bytes) } };
}

/**
 * Every route under `/repos/{owner}/{repo}`. The patterns do not overlap, so the order only
 * keeps related routes together; a path no route of its method takes is a 404.
 */
const REPO_ROUTES: RepoRoute[] = [
  { method: 'GET', path: /^$/, handle: guarded([['metadata', 'read']], async (ctx) => ({ status: 200, body: await repoJson(ctx) })) },
  { method: 'GET', path: /^\/collaborators\/([^/]+)\/permission$/, handle: guarded([['metadata', 'read']], collaboratorPermission) },
  { method: 'GET', path: /^\/contents(?:\/(.*))?$/, handle: guarded([['contents', 'read']], contents) },
  ...ISSUE_ROUTES,
  ...GIT_DATA_ROUTES,
  ...COMMIT_ROUTES,
  ...PULL_ROUTES,
];

/** Routes under `/repos/{owner}/{repo}`; the caller has already checked the token's repository. */
export async function handleRepoRoute(ctx: RouteContext): Promise<RouteResult> {
  for (const route of REPO_ROUTES) {
    if (route.method !== ctx.method) continue;
    const m = route.path.exec(ctx.rest);
    if (m) return route.handle(ctx, m, obj(ctx.body));
  }
  return notFound;
}
