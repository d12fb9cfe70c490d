import type { CampaignSelector } from '../../core/campaign/campaign-spec.js';
import {
  MAX_HAS_FILE_BYTES,
  MAX_HAS_FILE_CHECKS,
  hasFileFailure,
  selectByMetadata,
  type InstallationListing,
  type InstalledRepository,
} from '../../core/campaign/select-repositories.js';
import { WebhookSession, type TriggerDeps } from '../webhook/webhook-session.js';

/** The home installation's repositories and their metadata (token-read's listing, `listInstallationRepositories`). */
export interface RepositoryLister {
  list(installationId: number): Promise<InstallationListing>;
}

/** Repositories whose default branch is read for `hasFile` at once. */
const HAS_FILE_PARALLEL = 4;

type HasFile = NonNullable<CampaignSelector['hasFile']>;

/**
 * The repositories `repositories.select` takes from the home installation, sorted by name,
 * leaving out those in `skip` (lower-case names already in the spec's list) and stopping at
 * `room`: the metadata conditions first (`selectByMetadata`), then `hasFile` on each remaining
 * candidate's default branch with a read token for that repository (the one a campaign's start
 * reads its policy with), for at most MAX_HAS_FILE_CHECKS candidates.
 */
export async function selectTargets(
  deps: TriggerDeps & { listing: RepositoryLister },
  selector: CampaignSelector,
  installationId: number,
  skip: ReadonlySet<string>,
  room: number,
): Promise<string[]> {
  const listing = await deps.listing.list(installationId);
  if (listing.truncated) deps.logger.warn('campaign selection: the installation lists more repositories than are read', { installationId });
  const candidates = selectByMetadata(selector, listing.repositories).filter((r) => !skip.has(r.fullName.toLowerCase()));
  const { hasFile } = selector;
  if (!hasFile) return candidates.slice(0, room).map((r) => r.fullName);
  const checked = candidates.slice(0, MAX_HAS_FILE_CHECKS);
  if (candidates.length > checked.length) {
    deps.logger.warn('campaign selection: hasFile read on the first candidates only', {
      installationId,
      candidates: candidates.length,
      checked: checked.length,
    });
  }
  const selected: string[] = [];
  for (let i = 0; i < checked.length && selected.length < room; i += HAS_FILE_PARALLEL) {
    const batch = checked.slice(i, i + HAS_FILE_PARALLEL);
    const found = await Promise.all(batch.map((r) => defaultBranchHasFile(deps, r, installationId, hasFile)));
    selected.push(...batch.filter((_, j) => found[j]).map((r) => r.fullName));
  }
  return selected.slice(0, room);
}

/**
 * Whether the repository's default branch passes `hasFile`: the branch's tree, its files judged
 * by `hasFileFailure` (the evaluation the CLI shares), which reads at most MAX_HAS_FILE_READS
 * matching blobs of at most MAX_HAS_FILE_BYTES each. An empty repository or a missing branch has
 * no file.
 */
async function defaultBranchHasFile(deps: TriggerDeps, r: InstalledRepository, installationId: number, hasFile: HasFile): Promise<boolean> {
  const [owner, repo] = r.fullName.split('/');
  const session = WebhookSession.forResolved(deps, { id: r.id, owner, name: repo, installationId, defaultBranch: r.defaultBranch, cloneUrl: r.cloneUrl });
  const api = await session.api();
  let tree;
  try {
    const branch = await api.rest.repos.getBranch({ owner, repo, branch: r.defaultBranch });
    tree = (await api.rest.git.getTree({ owner, repo, tree_sha: branch.data.commit.commit.tree.sha, recursive: 'true' })).data.tree;
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 404 || status === 409) return false;
    throw error;
  }
  const files = tree
    .filter((e) => e.type === 'blob' && e.path && e.sha)
    .map((e) => ({ path: e.path!, id: e.sha!, ...(e.size === undefined ? {} : { size: e.size }) }));
  const failed = await hasFileFailure(hasFile, files, async (file) => {
    const blob = (await api.rest.git.getBlob({ owner, repo, file_sha: file.id })).data;
    return (blob.size ?? 0) > MAX_HAS_FILE_BYTES ? undefined : Buffer.from(blob.content, 'base64').toString('utf8');
  });
  return failed === undefined;
}
