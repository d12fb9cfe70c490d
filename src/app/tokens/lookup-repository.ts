import { createAppAuth } from '@octokit/auth-app';
import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { Clock, Logger } from '../../core/ports.js';
import { createGitHubApi, type GitHubRetryPolicy } from '../github/github-api.js';
import { pkcs8Pem, tokenErrorOf } from './mint-installation-token.js';
import type { ResolvedRepository } from './resolved-repository.js';

/** token-read's second request: which repository an `owner/name` of the installation is (a campaign's target). */
export const RepositoryLookupEvent = z.strictObject({
  installationId: z.number().int().positive(),
  lookup: z.string().regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/),
  /**
   * A campaign's target: when the installation does not cover the repository, look in the
   * repository's own installation of the App (docs/campaigns.md, "Which installation").
   */
  anyInstallation: z.literal(true).optional(),
});
export type RepositoryLookupEvent = z.infer<typeof RepositoryLookupEvent>;

export interface LookupOptions {
  apiUrl: string;
  appId: string | number;
  privateKey: string | KeyObject;
  clock: Clock;
  fetch?: typeof globalThis.fetch;
  policy?: Partial<GitHubRetryPolicy>;
  logger?: Logger;
}

/**
 * Which repository `owner/name` is in the installation: a token with `metadata: read` for that
 * one repository by name (GitHub refuses a name the installation does not cover: undefined),
 * `GET /repos/{owner}/{repo}` with it, and the token dropped. With `anyInstallation`, a
 * repository the installation does not cover is looked up in its own installation of the App
 * (`GET /repos/{owner}/{repo}/installation` with the App's JWT), the same way; undefined when
 * the App is not installed on it (or it does not exist, or its installation is suspended).
 * Only ids, names and the default branch leave this function, never a token or the JWT.
 */
export async function lookupRepository(options: LookupOptions, event: RepositoryLookupEvent): Promise<ResolvedRepository | undefined> {
  const found = await lookupIn(options, event.installationId, event.lookup);
  if (found || !event.anyInstallation) return found;
  const own = await repositoryInstallation(options, event.installationId, event.lookup);
  return own === undefined || own === event.installationId ? undefined : lookupIn(options, own, event.lookup);
}

async function lookupIn(options: LookupOptions, installationId: number, fullName: string): Promise<ResolvedRepository | undefined> {
  const [owner, name] = fullName.split('/');
  const meta = { installationId, repository: fullName };
  let token: string;
  try {
    token = await metadataToken(options, installationId, [name]);
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 404 || status === 422) return undefined;
    throw tokenErrorOf(error, meta);
  }
  const api = createGitHubApi({ token, baseUrl: options.apiUrl, fetch: options.fetch, policy: options.policy, logger: options.logger, now: options.clock.now });
  try {
    const { data } = await api.rest.repos.get({ owner, repo: name });
    return {
      id: data.id,
      owner: data.owner.login,
      name: data.name,
      installationId,
      defaultBranch: data.default_branch,
      cloneUrl: data.clone_url,
    };
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined;
    throw error;
  }
}

/**
 * The id of the App's installation on `owner/name`, asked with the App's JWT (which only
 * identifies the App: it reads no repository); undefined when the App is not installed there or
 * the installation is suspended.
 */
async function repositoryInstallation(options: LookupOptions, askedIn: number, fullName: string): Promise<number | undefined> {
  const [owner, repo] = fullName.split('/');
  const { token: jwt } = await appAuth(options)({ type: 'app' });
  const api = createGitHubApi({
    token: jwt,
    baseUrl: options.apiUrl,
    fetch: options.fetch,
    policy: options.policy,
    logger: options.logger,
    now: options.clock.now,
  });
  try {
    const { data } = await api.rest.apps.getRepoInstallation({ owner, repo });
    return data.suspended_at ? undefined : data.id;
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined;
    throw tokenErrorOf(error, { installationId: askedIn, repository: fullName });
  }
}

/**
 * An installation token with `metadata: read` only, for the named repositories of the
 * installation (all of them when none are named). It stays inside token-read: only what it
 * reads leaves, never the token.
 */
export async function metadataToken(options: LookupOptions, installationId: number, repositoryNames?: string[]): Promise<string> {
  const scope = repositoryNames ? { repositoryNames } : {};
  return (await appAuth(options)({ type: 'installation', installationId, ...scope, permissions: { metadata: 'read' } })).token;
}

/** The App's own authentication (its JWT, and installation tokens minted with it), on the options' clock. */
function appAuth(options: LookupOptions) {
  const github = createGitHubApi({
    baseUrl: options.apiUrl,
    userAgent: 'draftsman-token-vending',
    fetch: options.fetch,
    policy: options.policy,
    logger: options.logger,
    now: options.clock.now,
  });
  const request = github.request.defaults({ headers: { 'x-github-api-version': '2022-11-28' } });
  const timeDifference = Math.floor(options.clock.now() / 1000) - Math.floor(Date.now() / 1000);
  return createAppAuth({
    appId: options.appId,
    privateKey: pkcs8Pem(options.privateKey),
    request,
    cache: { get: () => '', set: () => undefined },
    timeDifference,
  });
}
