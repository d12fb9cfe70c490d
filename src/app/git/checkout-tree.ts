import type { RepositoryTree } from '../../core/campaign/select-checkout.js';
import type { TreeFile } from '../../core/campaign/select-repositories.js';
import { runGit } from './run-git.js';

/**
 * What a campaign's selection reads of a local checkout (docs/campaigns.md, "From the CLI"), with
 * the same neutral git as ingestion (`runGit`): its `origin` remote and its HEAD commit's tree.
 * Committed files only; the working copy is never looked at.
 */

/** The URL of the repository's `origin` remote, from its own configuration only; undefined without one. */
export async function originUrl(gitdir: string): Promise<string | undefined> {
  try {
    return (await runGit(['--git-dir', gitdir, 'config', '--get', 'remote.origin.url'])).toString('utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The files of HEAD's commit (no file when HEAD has no commit yet), each read as UTF-8 text on demand. */
export async function headTree(gitdir: string): Promise<RepositoryTree> {
  const read = async (file: TreeFile) => (await runGit(['--git-dir', gitdir, 'cat-file', 'blob', file.id])).toString('utf8');
  let listing: string;
  try {
    listing = (await runGit(['--git-dir', gitdir, 'ls-tree', '-r', '-z', '--long', '--full-tree', 'HEAD'])).toString('utf8');
  } catch {
    return { files: [], read };
  }
  const files: TreeFile[] = [];
  for (const entry of listing.split('\u0000')) {
    const match = /^\d+ blob ([0-9a-f]{40,64}) +(\d+)\t(.+)$/s.exec(entry);
    if (match) files.push({ path: match[3], id: match[1], size: Number(match[2]) });
  }
  return { files, read };
}
