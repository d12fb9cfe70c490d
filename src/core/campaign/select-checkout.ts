import type { CampaignSpec } from './campaign-spec.js';
import { hasFileFailure, namesMatcher, type HasFileFailure, type TreeFile } from './select-repositories.js';

/**
 * The campaign's `repositories` applied to one repository the CLI was given (docs/campaigns.md,
 * "From the CLI"): the App's rules on the conditions a checkout can answer (`list`,
 * `select.names`, `select.hasFile`); GitHub's metadata conditions are the caller's to report
 * (`githubMetadataConditions`).
 */

/** A commit's files and how to read one (for `hasFile.contains`). */
export interface RepositoryTree {
  files: readonly TreeFile[];
  read(file: TreeFile): Promise<string | undefined>;
}

/** The condition that left a repository out: not in `list` (and no `select`), or the part of `select` it fails. */
export type SelectionCondition = 'list' | 'names' | 'hasFile' | HasFileFailure;

export type RepositorySelection = { selected: true; by: 'all' | 'list' | 'select' } | { selected: false; condition: SelectionCondition; detail: string };

/**
 * Whether the repository named `name` (`owner/name`) is in the campaign: every one when the spec
 * has neither `list` nor `select`; else when `list` names it (case-insensitive) or it passes
 * `select`: `names` (the App's globs), then `hasFile` over `tree()`, read only when needed. A
 * repository whose tree cannot be read here (`tree` undefined: a URL) fails `hasFile`.
 */
export async function selectRepository(
  repositories: CampaignSpec['repositories'],
  name: string,
  tree: (() => Promise<RepositoryTree>) | undefined,
): Promise<RepositorySelection> {
  const { list, select } = repositories ?? {};
  if (!list && !select) return { selected: true, by: 'all' };
  const key = name.toLowerCase();
  if (list?.some((l) => l.toLowerCase() === key)) return { selected: true, by: 'list' };
  if (!select) return { selected: false, condition: 'list', detail: `${name} is not in repositories.list` };
  const named = namesMatcher(select);
  if (named && !named(name)) return { selected: false, condition: 'names', detail: `names: ${name} matches none of ${select.names!.join(', ')}` };
  const { hasFile } = select;
  if (!hasFile) return { selected: true, by: 'select' };
  if (!tree)
    return { selected: false, condition: 'hasFile', detail: 'hasFile: not evaluated on a URL (pass a local checkout, or name it in repositories.list)' };
  const { files, read } = await tree();
  const failed = await hasFileFailure(hasFile, files, read);
  if (failed === 'hasFile.path') return { selected: false, condition: failed, detail: `hasFile.path: no committed file matches ${hasFile.path}` };
  if (failed === 'hasFile.contains') {
    return {
      selected: false,
      condition: failed,
      detail: `hasFile.contains: no committed file matching ${hasFile.path} contains ${JSON.stringify(hasFile.contains)}`,
    };
  }
  return { selected: true, by: 'select' };
}
