import { basename, resolve } from 'node:path';
import type { CampaignSpec } from '../../core/campaign/campaign-spec.js';
import { localRepositoryName, ownerNameOfUrl } from '../../core/campaign/repository-name.js';
import { selectRepository, type RepositorySelection } from '../../core/campaign/select-checkout.js';
import { githubMetadataConditions } from '../../core/campaign/select-repositories.js';
import { headTree, originUrl } from '../git/checkout-tree.js';
import { locateGitDir } from '../git/local-repo-source.js';
import { identityFromUrl } from '../git/repo-identity.js';

/**
 * `campaign run`'s `--repos` under the spec's `repositories` (docs/campaigns.md, "From the CLI"):
 * each one named `owner/name`, then kept or left out by `list` and `select` as the App would.
 */

/** A `--repos` that is a URL (`draftsman run` accepts http(s) and refuses the other schemes). */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** A --repos, named, and whether the campaign takes it; `selection` undefined: not a readable checkout, left to its run to report. */
export interface RepositoryChoice {
  name: string;
  selection?: RepositorySelection;
}

/**
 * The `owner/name` of one `--repos` and the campaign's verdict on it: a URL is named by its last
 * two path segments and its `hasFile` is not evaluated (nothing is fetched before the run); a
 * local checkout by its `origin` remote, else `local/<directory>`, and `hasFile` is read from its
 * HEAD commit. A path that is no git repository is not judged: its run fails as it would alone.
 */
export async function chooseRepository(spec: CampaignSpec, repository: string, cwd: string): Promise<RepositoryChoice> {
  if (URL_LIKE.test(repository)) {
    const named = ownerNameOfUrl(repository) ?? safeIdentity(repository);
    const name = named ? `${named.owner}/${named.repo}` : localRepositoryName(basename(repository));
    return { name, selection: await selectRepository(spec.repositories, name, undefined) };
  }
  const path = resolve(cwd, repository);
  let gitdir: string;
  try {
    gitdir = (await locateGitDir(path)).gitdir;
  } catch {
    return { name: localRepositoryName(basename(path)) };
  }
  const remote = await originUrl(gitdir);
  const named = remote === undefined ? undefined : ownerNameOfUrl(remote);
  const name = named ? `${named.owner}/${named.repo}` : localRepositoryName(basename(path));
  return { name, selection: await selectRepository(spec.repositories, name, () => headTree(gitdir)) };
}

function safeIdentity(url: string) {
  try {
    return identityFromUrl(url);
  } catch {
    return undefined;
  }
}

/** The one stderr sentence naming the selector's conditions the CLI cannot evaluate; undefined when it uses none. */
export function unevaluatedNotice(spec: CampaignSpec): string | undefined {
  const select = spec.repositories?.select;
  const keys = select ? githubMetadataConditions(select) : [];
  if (keys.length === 0) return undefined;
  const named = keys.map((k) => `repositories.select.${k}`).join(', ');
  return `draftsman: ${named} ${keys.length === 1 ? 'is' : 'are'} GitHub metadata the CLI cannot evaluate on --repos: every repository is taken as meeting ${keys.length === 1 ? 'it' : 'them'}, the other conditions still apply.\n`;
}
