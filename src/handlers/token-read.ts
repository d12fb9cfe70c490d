import { SSMClient } from '@aws-sdk/client-ssm';
import type { IssuedToken } from '../core/ports.js';
import type { InstallationListing } from '../core/campaign/select-repositories.js';
import { InstallationListingEvent, listInstallationRepositories } from '../app/tokens/list-installation.js';
import { lookupRepository, RepositoryLookupEvent } from '../app/tokens/lookup-repository.js';
import type { ResolvedRepository } from '../app/tokens/resolved-repository.js';
import { createTokenHandler, ssmPrivateKeyLoader, TokenHandlerEnv } from '../app/tokens/token-handler.js';

/**
 * token-read: mints a read-scoped installation token for one repository. Invoked by the
 * webhook, the sweeper and run-session (never by the worker: run-session asks on its behalf,
 * for the repository of the webhook-written request). One of the two functions that may read
 * the App key; the key is read once per cold start.
 */
const env = TokenHandlerEnv.parse(process.env);

const loadKey = ssmPrivateKeyLoader(new SSMClient({}), env.APP_PRIVATE_KEY_PARAMETER);
let key: Promise<string> | undefined;
const loadPrivateKey = (): Promise<string> => {
  key ??= loadKey();
  key.catch(() => (key = undefined));
  return key;
};
const clock = { now: () => Date.now() };
const mint = createTokenHandler({ role: 'read', appId: env.GITHUB_APP_ID, apiUrl: env.GITHUB_API_URL, clock, loadPrivateKey });

/**
 * A token request, or (the campaign function's) a lookup of a repository by name (with
 * `anyInstallation`, in the repository's own installation of the App when the given one does not
 * cover it, found with the App's JWT) or a listing of the installation's repositories, both
 * answered with metadata, never a token.
 */
export async function handler(event: RepositoryLookupEvent): Promise<ResolvedRepository | null>;
export async function handler(event: InstallationListingEvent): Promise<InstallationListing>;
export async function handler(event: unknown): Promise<IssuedToken>;
export async function handler(event: unknown): Promise<IssuedToken | ResolvedRepository | InstallationListing | null> {
  const options = async () => ({ appId: env.GITHUB_APP_ID, apiUrl: env.GITHUB_API_URL, clock, privateKey: await loadPrivateKey() });
  const listing = InstallationListingEvent.safeParse(event);
  if (listing.success) return listInstallationRepositories(await options(), listing.data);
  const lookup = RepositoryLookupEvent.safeParse(event);
  if (!lookup.success) return mint(event);
  return (await lookupRepository(await options(), lookup.data)) ?? null;
}
