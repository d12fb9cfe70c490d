import { faultStatus, isTransientFault } from '../../core/errors.js';
import { GitHubApiError } from './github-api-error.js';
import { retryPolicyOf, type GitHubApi } from './github-api.js';

/*
 * Create calls that cannot duplicate (docs/operations.md, "Create calls"). The retry plugin
 * repeats a request whose answer was a 5xx, a reset or a timeout; for a POST that creates
 * something, GitHub may have created it and only the answer was lost, so a blind repeat makes a
 * second comment (refs and pull requests answer 422 instead). Here a create is sent with the
 * plugin's retries off; when its answer may have been lost, `find` looks for what it would have
 * created, and only when nothing is there is it sent again, with the client's own backoff.
 */

/** Spread into a create call's parameters: the retry plugin leaves this one request alone. */
export const NO_RETRY = { request: { retries: 0 } } as const;

/**
 * Whether GitHub may have carried out a request whose answer we did not get: a 5xx, or no HTTP
 * answer at all (network failure, timeout). A 4xx, a rate limit included, means it was refused.
 */
export function answerMayBeLost(error: unknown): boolean {
  if (error instanceof GitHubApiError) return false;
  const status = faultStatus(error);
  return status === undefined ? isTransientFault(error) : status >= 500;
}

export interface CreateOnceSteps<T> {
  /** The create, sent with `NO_RETRY` in its parameters. */
  create: () => Promise<T>;
  /** What an earlier try of this create left on GitHub; undefined when there is nothing. */
  find: () => Promise<T | undefined>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `create`, at most once on GitHub: after an answer that may have been lost, `find` decides
 * whether to send it again. As many tries as the client's policy gives the retry plugin
 * (`retries`), waiting 1, 4, 9 … units of `msPerSecond` between them as the plugin does. The
 * last failure is thrown when nothing was found.
 */
export async function createOnce<T>(api: GitHubApi, steps: CreateOnceSteps<T>): Promise<T> {
  const policy = retryPolicyOf(api);
  for (let retry = 0; ; retry++) {
    try {
      return await steps.create();
    } catch (error) {
      if (!answerMayBeLost(error)) throw error;
      const found = await steps.find();
      if (found !== undefined) return found;
      if (retry >= policy.retries) throw error;
      await sleep((retry + 1) ** 2 * policy.msPerSecond);
    }
  }
}

export interface MarkedComment {
  owner: string;
  repo: string;
  /** The issue or pull request number. */
  issue: number;
  /** The comment; it must contain `marker`. */
  body: string;
  /** An HTML comment unique to this post (a run's progress, an attempt's report). */
  marker: string;
  /**
   * The App's login (`<slug>[bot]`): only its comments count as an earlier try. Without it any
   * bot's comment counts (clients that do not know the login).
   */
  botLogin: string | undefined;
}

/**
 * The comment carrying `marker` that the App wrote on the issue, if any (the newest one). A
 * marker in anyone else's comment counts for nothing: anyone can paste it.
 */
export async function findMarkedComment(
  api: GitHubApi,
  where: Omit<MarkedComment, 'body'>,
): Promise<{ id: number; html_url: string; body?: string } | undefined> {
  const comments = await api.paginate(api.rest.issues.listComments, { owner: where.owner, repo: where.repo, issue_number: where.issue, per_page: 100 });
  const byApp = (c: (typeof comments)[number]) => (where.botLogin === undefined ? c.user?.type === 'Bot' : c.user?.login === where.botLogin);
  return comments.filter((c) => byApp(c) && c.body?.includes(where.marker)).at(-1);
}

/**
 * Post a comment once: a lost answer is followed by a look for the App's comment with the
 * marker before any second POST. Returns the comment's id and URL. The intake's progress
 * comment, the publisher's reports and notes and the webhook's marked comments use it.
 */
export async function createCommentOnce(api: GitHubApi, comment: MarkedComment): Promise<{ id: number; html_url: string }> {
  if (!comment.body.includes(comment.marker)) throw new Error('createCommentOnce: the body does not carry its marker');
  const { owner, repo, issue, body } = comment;
  return createOnce(api, {
    create: async () => (await api.rest.issues.createComment({ owner, repo, issue_number: issue, body, ...NO_RETRY })).data,
    find: () => findMarkedComment(api, comment),
  });
}
