import { InstallationListing } from '../../core/campaign/select-repositories.js';
import { invokeJson, type LambdaLike } from '../aws/invoke-json.js';
import { ResolvedRepository } from '../tokens/resolved-repository.js';
import type { RepositoryResolver } from './campaign-item.js';
import type { RepositoryLister } from './select-targets.js';

/**
 * The deployed resolver: asks token-read (the only reader of the App key) which repository an
 * `owner/name` is in the given installation (`lookupRepository`). With `anyInstallation` (a
 * campaign's targets) token-read looks in the repository's own installation of the App when the
 * given one does not cover it (docs/campaigns.md, "Which installation"); a schedule's lookup
 * stays in its own installation.
 */
export function lambdaRepositoryResolver(client: LambdaLike, functionName: string, options: { anyInstallation?: boolean } = {}): RepositoryResolver {
  return {
    async resolve(fullName, homeInstallationId) {
      const payload = await invokeJson(
        client,
        functionName,
        { installationId: homeInstallationId, lookup: fullName, ...(options.anyInstallation ? { anyInstallation: true } : {}) },
        (failure) => new Error(`token-read failed to look up ${fullName}: ${failure.kind}`),
      );
      return payload === null ? undefined : ResolvedRepository.parse(payload);
    },
  };
}

/**
 * The deployed lister: asks token-read for the home installation's repositories and their
 * metadata (`listInstallationRepositories`); the installation's token never leaves token-read.
 */
export function lambdaRepositoryLister(client: LambdaLike, functionName: string): RepositoryLister {
  return {
    async list(installationId) {
      const payload = await invokeJson(
        client,
        functionName,
        { installationId, list: 'repositories' },
        (failure) => new Error(`token-read failed to list installation ${installationId}'s repositories: ${failure.kind}`),
      );
      return InstallationListing.parse(payload);
    },
  };
}
