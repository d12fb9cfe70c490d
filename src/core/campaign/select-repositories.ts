import { z } from 'zod';
import { compileGlobs } from '../paths/glob.js';
import { MAX_CAMPAIGN_REPOSITORIES, type CampaignSelector } from './campaign-spec.js';

/**
 * `repositories.select` over the home installation's repositories (docs/campaigns.md, "Which
 * repositories"): what can be decided from a repository's metadata (names, topics, language,
 * archived, forks) is decided here; `hasFile` is decided here over a tree the App (or the CLI,
 * over a checkout's HEAD) reads.
 */

/** Most repositories token-read lists from one installation (100 a page); past it the listing says `truncated`. */
export const MAX_LISTED_REPOSITORIES = 2000;
/** Most repositories of one selection whose default branch is read for `hasFile`. */
export const MAX_HAS_FILE_CHECKS = 100;
/** Most files matching `hasFile.path` read from one repository for `hasFile.contains`. */
export const MAX_HAS_FILE_READS = 10;
/** A matching file larger than this is not read for `hasFile.contains` (bytes). */
export const MAX_HAS_FILE_BYTES = 1024 * 1024;

/** One repository of an installation as GitHub lists it (`GET /installation/repositories`). */
export const InstalledRepository = z.object({
  id: z.number().int(),
  /** owner/name */
  fullName: z.string(),
  defaultBranch: z.string(),
  cloneUrl: z.string(),
  topics: z.array(z.string()),
  language: z.string().nullable(),
  archived: z.boolean(),
  fork: z.boolean(),
});
export type InstalledRepository = z.infer<typeof InstalledRepository>;

/** What token-read answers to a listing: the installation's repositories, at most MAX_LISTED_REPOSITORIES. */
export const InstallationListing = z.object({
  repositories: z.array(InstalledRepository),
  /** The installation has more repositories than were listed. */
  truncated: z.boolean(),
});
export type InstallationListing = z.infer<typeof InstallationListing>;

/**
 * The repositories the selector's metadata conditions take, sorted by name: every name glob is
 * an `owner/name` pattern (case-insensitive, as GitHub's names are; `*` stays within one
 * segment), every topic must be present, the language is the primary one (case-insensitive),
 * and archived repositories and forks are left out unless the selector takes them.
 */
export function selectByMetadata(selector: CampaignSelector, repositories: readonly InstalledRepository[]): InstalledRepository[] {
  const named = namesMatcher(selector);
  const topics = (selector.topics ?? []).map((t) => t.toLowerCase());
  const language = selector.language?.toLowerCase();
  return repositories
    .filter((r) => {
      if (r.archived && !selector.archived) return false;
      if (r.fork && !selector.forks) return false;
      if (named && !named(r.fullName)) return false;
      if (language !== undefined && r.language?.toLowerCase() !== language) return false;
      const has = new Set(r.topics.map((t) => t.toLowerCase()));
      return topics.every((t) => has.has(t));
    })
    .sort((a, b) => (a.fullName < b.fullName ? -1 : a.fullName > b.fullName ? 1 : 0));
}

/**
 * The campaign's repositories: the spec's list in its order, then the selection (already sorted),
 * each once (names compared case-insensitively, the first spelling kept), at most
 * MAX_CAMPAIGN_REPOSITORIES.
 */
export function campaignRepositories(list: readonly string[], selected: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const name of [...list, ...selected]) {
    if (out.length >= MAX_CAMPAIGN_REPOSITORIES) break;
    const key = name.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(name);
  }
  return out;
}

/** `select.names` as one test of an `owner/name`: globs compared case-insensitively; undefined when the selector names none. */
export function namesMatcher(selector: CampaignSelector): ((fullName: string) => boolean) | undefined {
  return selector.names ? compileGlobs(selector.names, { nocase: true }) : undefined;
}

/**
 * The selector's conditions on what GitHub knows of a repository rather than what it holds:
 * the App evaluates them from the installation's listing; the CLI, given checkouts, cannot.
 */
export const GITHUB_METADATA_CONDITIONS = ['topics', 'language', 'archived', 'forks'] as const;
export type GithubMetadataCondition = (typeof GITHUB_METADATA_CONDITIONS)[number];

/** The GitHub metadata conditions this selector states (`archived` and `forks` only when the spec writes them). */
export function githubMetadataConditions(selector: CampaignSelector): GithubMetadataCondition[] {
  return GITHUB_METADATA_CONDITIONS.filter((key) => selector[key] !== undefined);
}

/** The paths of a tree that `hasFile.path` matches, in the tree's order (the project's glob dialect, `src/core/paths/glob.ts`). */
export function matchingFiles(pattern: string, paths: readonly string[]): string[] {
  const matches = compileGlobs([pattern]);
  return paths.filter((p) => matches(p));
}

/** A file of a commit's tree: its path, its size when the tree says it, and what the reader needs to read it (a blob id). */
export interface TreeFile {
  path: string;
  size?: number;
  id: string;
}

/** Which part of `hasFile` a tree fails. */
export type HasFileFailure = 'hasFile.path' | 'hasFile.contains';

/**
 * Whether a commit's files pass `hasFile`, the one evaluation the App (a default branch's tree
 * on GitHub) and the CLI (a checkout's HEAD) share: undefined when they do, else the part that
 * fails. No file matching `hasFile.path` (a repository glob) fails `hasFile.path`. With
 * `contains`, at most MAX_HAS_FILE_READS matching files of at most MAX_HAS_FILE_BYTES are read,
 * in the tree's order (`read` answers undefined for one it cannot read or finds larger), and one
 * must include the text (plain text, not a pattern).
 */
export async function hasFileFailure(
  hasFile: NonNullable<CampaignSelector['hasFile']>,
  files: readonly TreeFile[],
  read: (file: TreeFile) => Promise<string | undefined>,
): Promise<HasFileFailure | undefined> {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const matches = matchingFiles(hasFile.path, [...byPath.keys()]).map((p) => byPath.get(p)!);
  if (matches.length === 0) return 'hasFile.path';
  const { contains } = hasFile;
  if (contains === undefined) return undefined;
  const readable = matches.filter((f) => (f.size ?? 0) <= MAX_HAS_FILE_BYTES).slice(0, MAX_HAS_FILE_READS);
  for (const file of readable) {
    const text = await read(file);
    if (text !== undefined && text.includes(contains)) return undefined;
  }
  return 'hasFile.contains';
}
