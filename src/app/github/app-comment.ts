import type { GitHubApi } from './github-api.js';

export interface MarkedCommentQuery {
  owner: string;
  repo: string;
  issue: number;
  marker: string;
  /** `<slug>[bot]`: only the App's own comments count. */
  botLogin: string;
}

/**
 * The App's own comment on an issue that carries `marker`, oldest first, or undefined. A marker
 * in anyone else's comment counts for nothing: anyone can paste it.
 */
export async function findAppComment(api: GitHubApi, query: MarkedCommentQuery): Promise<{ id: number; body: string } | undefined> {
  const comments = await api.paginate(api.rest.issues.listComments, { owner: query.owner, repo: query.repo, issue_number: query.issue, per_page: 100 });
  const found = comments.find((c) => c.user?.login === query.botLogin && c.body?.includes(query.marker));
  return found ? { id: found.id, body: found.body ?? '' } : undefined;
}
