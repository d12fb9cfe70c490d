import { z } from 'zod';
import { MAX_LISTED_REPOSITORIES, type InstallationListing } from '../../core/campaign/select-repositories.js';
import { createGitHubApi } from '../github/github-api.js';
import { tokenErrorOf } from './mint-installation-token.js';
import { metadataToken, type LookupOptions } from './lookup-repository.js';

/** token-read's third request: the installation's repositories (a campaign's `repositories.select`). */
export const InstallationListingEvent = z.strictObject({
  installationId: z.number().int().positive(),
  list: z.literal('repositories'),
});
export type InstallationListingEvent = z.infer<typeof InstallationListingEvent>;

const PER_PAGE = 100;

/**
 * The installation's repositories with the facts a selector asks about (name, id, default
 * branch, topics, primary language, archived, fork): a `metadata: read` token for the whole
 * installation, `GET /installation/repositories` a page of 100 at a time, at most
 * MAX_LISTED_REPOSITORIES, and the token dropped. Only the metadata leaves this function.
 */
export async function listInstallationRepositories(
  options: LookupOptions & { maxRepositories?: number },
  event: InstallationListingEvent,
): Promise<InstallationListing> {
  const max = options.maxRepositories ?? MAX_LISTED_REPOSITORIES;
  let token: string;
  try {
    token = await metadataToken(options, event.installationId);
  } catch (error) {
    throw tokenErrorOf(error, { installationId: event.installationId });
  }
  const api = createGitHubApi({ token, baseUrl: options.apiUrl, fetch: options.fetch, policy: options.policy, logger: options.logger, now: options.clock.now });
  const repositories: InstallationListing['repositories'] = [];
  for (let page = 1; repositories.length < max; page++) {
    const { data } = await api.rest.apps.listReposAccessibleToInstallation({ per_page: PER_PAGE, page });
    for (const r of data.repositories) {
      repositories.push({
        id: r.id,
        fullName: r.full_name,
        defaultBranch: r.default_branch,
        cloneUrl: r.clone_url,
        topics: r.topics ?? [],
        language: r.language ?? null,
        archived: r.archived,
        fork: r.fork,
      });
    }
    if (data.repositories.length < PER_PAGE || page * PER_PAGE >= data.total_count) {
      return { repositories: repositories.slice(0, max), truncated: repositories.length > max };
    }
  }
  return { repositories: repositories.slice(0, max), truncated: true };
}
