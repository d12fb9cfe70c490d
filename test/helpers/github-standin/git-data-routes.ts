import { parseIsoDate, type Signature } from './git-objects.js';
import { base64Lines, gitCommitJson, refJson, treeJson } from './repo-json.js';
import { guarded, notFound, obj, unprocessable, type RepoRoute, type RouteContext, type RouteResult } from './route-context.js';
import { buildTree, UnprocessableError, type TreeRequestEntry } from './tree-builder.js';

const SHA = /^[0-9a-f]{40}$/;

function signatureFrom(value: unknown, fallback: Signature): Signature {
  const v = obj(value);
  if (typeof v.name !== 'string' || typeof v.email !== 'string') throw new UnprocessableError('author and committer need name and email');
  const date = typeof v.date === 'string' ? parseIsoDate(v.date) : { timestamp: fallback.timestamp, tz: fallback.tz };
  return { name: v.name, email: v.email, ...date };
}

const createBlob: RepoRoute['handle'] = async (ctx, _m, body) => {
  if (typeof body.content !== 'string') return unprocessable('content is missing');
  const encoding = body.encoding ?? 'utf-8';
  if (encoding !== 'utf-8' && encoding !== 'utf8' && encoding !== 'base64') return unprocessable(`encoding ${String(encoding)} is not supported`);
  const bytes = encoding === 'base64' ? Buffer.from(body.content, 'base64') : Buffer.from(body.content, 'utf8');
  const sha = await ctx.repo.git.writeBlob(bytes);
  return { status: 201, body: { sha, url: `${ctx.baseUrl}/repos/${ctx.repo.fullName}/git/blobs/${sha}` } };
};

const getBlob: RepoRoute['handle'] = async (ctx, m) => {
  const bytes = await ctx.repo.git.readRaw('blob', m[1]);
  if (!bytes) return notFound;
  return { status: 200, body: { sha: m[1], size: bytes.length, encoding: 'base64', content: base64Lines(bytes), node_id: `B_${m[1]}` } };
};

const createTree: RepoRoute['handle'] = async (ctx, _m, body) => {
  if (!Array.isArray(body.tree)) return unprocessable('tree is missing');
  const sha = await buildTree(ctx.repo.git, typeof body.base_tree === 'string' ? body.base_tree : undefined, body.tree as TreeRequestEntry[]);
  return { status: 201, body: await treeJson(ctx, sha, false) };
};

/** The tree a tree SHA, a commit SHA or a ref names. */
async function treeOf(ctx: RouteContext, ref: string): Promise<string | undefined> {
  const git = ctx.repo.git;
  if (SHA.test(ref) && (await git.typeOf(ref)) === 'tree') return ref;
  const commit = await git.resolveCommitish(ref);
  return commit ? (await git.readCommit(commit))?.tree : undefined;
}

const getTree: RepoRoute['handle'] = async (ctx, m) => {
  const sha = await treeOf(ctx, decodeURIComponent(m[1]));
  if (!sha) return notFound;
  const recursive = ctx.query.has('recursive') && !['0', 'false'].includes(ctx.query.get('recursive') ?? '');
  return { status: 200, body: await treeJson(ctx, sha, recursive) };
};

/** Author and committer of a commit made through the API: the App's bot (committed by GitHub) unless the request names them. */
function commitSignatures(ctx: RouteContext, body: Record<string, unknown>) {
  const now = Math.floor(ctx.now() / 1000);
  const bot: Signature = { name: ctx.botUser.login, email: `${ctx.botUser.id}+${ctx.botUser.login}@users.noreply.github.com`, timestamp: now, tz: '+0000' };
  const gitHub: Signature = { name: 'GitHub', email: 'noreply@github.com', timestamp: now, tz: '+0000' };
  const customAuthor = body.author !== undefined && body.author !== null;
  const customCommitter = body.committer !== undefined && body.committer !== null;
  const author = customAuthor ? signatureFrom(body.author, bot) : bot;
  const committer = customCommitter ? signatureFrom(body.committer, author) : customAuthor ? author : gitHub;
  return { author, committer, customAuthor, customCommitter };
}

const createCommit: RepoRoute['handle'] = async (ctx, _m, body) => {
  const git = ctx.repo.git;
  if (typeof body.message !== 'string' || typeof body.tree !== 'string') return unprocessable('message and tree are required');
  if ((await git.typeOf(body.tree)) !== 'tree') return unprocessable('Tree SHA does not exist');
  const parents = Array.isArray(body.parents) ? (body.parents as unknown[]) : [];
  for (const p of parents) {
    if (typeof p !== 'string' || (await git.typeOf(p)) !== 'commit') return unprocessable('Parent SHA does not exist or is not a commit object');
  }
  const { author, committer, customAuthor, customCommitter } = commitSignatures(ctx, body);
  const sha = await git.writeCommit({ tree: body.tree, parents: parents as string[], author, committer, message: body.message });
  ctx.repo.createdCommits.push({ sha, customAuthor, customCommitter, tokenId: ctx.tokenId });
  return { status: 201, body: await gitCommitJson(ctx, sha) };
};

const getCommit: RepoRoute['handle'] = async (ctx, m) => {
  const json = await gitCommitJson(ctx, m[1]);
  return json ? { status: 200, body: json } : notFound;
};

const createRef: RepoRoute['handle'] = async (ctx, _m, body) => {
  const { ref, sha } = body;
  if (typeof ref !== 'string' || !/^refs\/[^/]+\/./.test(ref) || ref.split('/').length < 3) {
    return unprocessable("Reference name must start with 'refs/' and have at least two slashes.");
  }
  if (typeof sha !== 'string' || (await ctx.repo.git.typeOf(sha)) !== 'commit') return unprocessable('Object does not exist');
  if (!(await ctx.repo.git.updateRef(ref, sha, '0'.repeat(40)))) return unprocessable('Reference already exists');
  return { status: 201, body: refJson(ctx, ref, sha) };
};

/** `refs/<rest of the path>`, decoded. */
const refOf = (m: RegExpExecArray) => `refs/${decodeURIComponent(m[2])}`;

/** Whether `ref` exists as a reference of its own (not only as a prefix of others). */
async function refExists(ctx: RouteContext, ref: string): Promise<boolean> {
  return (await ctx.repo.git.listRefs(ref)).some((r) => r.ref === ref);
}

const getRef: RepoRoute['handle'] = async (ctx, m) => {
  const git = ctx.repo.git;
  const kind = m[1];
  const ref = refOf(m);
  if (kind === 'matching-refs') return { status: 200, body: (await git.listRefs(ref)).map((r) => refJson(ctx, r.ref, r.sha)) };
  const sha = await git.readRef(ref);
  if (sha && (await refExists(ctx, ref))) return { status: 200, body: refJson(ctx, ref, sha) };
  if (kind === 'refs') {
    const list = await git.listRefs(`${ref}/`);
    if (list.length > 0) return { status: 200, body: list.map((r) => refJson(ctx, r.ref, r.sha)) };
  }
  return notFound;
};

const updateRef: RepoRoute['handle'] = async (ctx, m, body): Promise<RouteResult> => {
  const git = ctx.repo.git;
  const ref = refOf(m);
  const current = await git.readRef(ref);
  if (!current || !(await refExists(ctx, ref))) return unprocessable('Reference does not exist');
  const sha = body.sha;
  if (typeof sha !== 'string' || (await git.typeOf(sha)) !== 'commit') return unprocessable('Object does not exist');
  if (body.force !== true && !(await git.isAncestor(current, sha))) return unprocessable('Update is not a fast forward');
  if (!(await git.updateRef(ref, sha, current))) return unprocessable('Reference cannot be updated');
  return { status: 200, body: refJson(ctx, ref, sha) };
};

const deleteRef: RepoRoute['handle'] = async (ctx, m) => {
  const ref = refOf(m);
  if (!(await ctx.repo.git.readRef(ref))) return unprocessable('Reference does not exist');
  await ctx.repo.git.deleteRef(ref);
  return { status: 204 };
};

const read = [['contents', 'read']] as [string, 'read'][];
const write = [['contents', 'write']] as [string, 'write'][];

/** Git Data: blobs, trees, commits and references. */
export const GIT_DATA_ROUTES: RepoRoute[] = [
  { method: 'POST', path: /^\/git\/blobs$/, handle: guarded(write, createBlob) },
  { method: 'GET', path: /^\/git\/blobs\/([0-9a-f]{40})$/, handle: guarded(read, getBlob) },
  { method: 'POST', path: /^\/git\/trees$/, handle: guarded(write, createTree) },
  { method: 'GET', path: /^\/git\/trees\/([^/]+)$/, handle: guarded(read, getTree) },
  { method: 'POST', path: /^\/git\/commits$/, handle: guarded(write, createCommit) },
  { method: 'GET', path: /^\/git\/commits\/([0-9a-f]{40})$/, handle: guarded(read, getCommit) },
  { method: 'POST', path: /^\/git\/refs$/, handle: guarded(write, createRef) },
  { method: 'GET', path: /^\/git\/(ref|refs|matching-refs)\/(.+)$/, handle: guarded(read, getRef) },
  { method: 'PATCH', path: /^\/git\/(refs)\/(.+)$/, handle: guarded(write, updateRef) },
  { method: 'DELETE', path: /^\/git\/(refs)\/(.+)$/, handle: guarded(write, deleteRef) },
];
