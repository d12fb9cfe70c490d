import { NO_RETRY, createOnce } from './create-once.js';
import type { GitHubApi } from './github-api.js';

export interface TrackingIssue {
  owner: string;
  repo: string;
  /** The App's login: only its own issues count (anyone can paste a marker). */
  botLogin: string;
  /** An HTML comment unique to what the issue tracks; it is in the body. */
  marker: string;
  title: string;
  body: string;
}

/**
 * An issue the App keeps for one purpose (a schedule, the default branch's CI): found by its
 * marker among the issues the App opened, open or closed, or opened now, once even when the
 * answer is lost. Never a second one.
 */
export async function trackingIssue(api: GitHubApi, issue: TrackingIssue): Promise<Awaited<ReturnType<GitHubApi['rest']['issues']['get']>>['data']> {
  if (!issue.body.includes(issue.marker)) throw new Error('trackingIssue: the body does not carry its marker');
  const { owner, repo } = issue;
  const find = async () => {
    const mine = await api.paginate(api.rest.issues.listForRepo, { owner, repo, state: 'all', creator: issue.botLogin, per_page: 100 });
    const found = mine.find((i) => !i.pull_request && i.body?.includes(issue.marker));
    return found === undefined ? undefined : (await api.rest.issues.get({ owner, repo, issue_number: found.number })).data;
  };
  return (
    (await find()) ??
    (await createOnce(api, {
      create: async () => (await api.rest.issues.create({ owner, repo, title: issue.title, body: issue.body, ...NO_RETRY })).data,
      find,
    }))
  );
}
