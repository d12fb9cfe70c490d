import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFs } from '../../src/app/local/node-fs.js';
import { ignoredDirOf, isUnderFixtureDir } from '../../src/core/paths/path-classes.js';
import { defaultPathRules } from '../../src/core/paths/path-rules.js';
import { buildRepoMap } from '../../src/core/repomap/build-repo-map.js';
import { FileContents } from '../../src/core/repomap/file-contents.js';
import type { ManifestRecord } from '../../src/core/repomap/repo-map-schema.js';
import { openWorkspace } from '../../src/core/workspace/workspace.js';
import { compareRepo, type RepoParity } from './parity.js';
import { renovateExtraction } from './renovate.js';
import { DEPS_REPOS, type DepsRepo } from './repos.js';

export const DEFAULT_MIRRORS = '/work/.mirror';

export function mirrorsDir(flag?: string): string {
  return flag ?? process.env.DRAFTSMAN_MIRRORS ?? DEFAULT_MIRRORS;
}

export function gitdirOf(mirrors: string, repo: string): string {
  return join(mirrors, repo.replace('/', '+'), 'repo');
}

/** The repositories of the list whose mirror is present (and, with `only`, named). */
export function presentRepos(mirrors: string, only: readonly string[] = []): { present: DepsRepo[]; skipped: string[] } {
  const chosen = only.length ? DEPS_REPOS.filter((r) => only.includes(r.repo)) : DEPS_REPOS;
  const unknown = only.filter((o) => !DEPS_REPOS.some((r) => r.repo === o));
  if (unknown.length) throw new Error(`not in eval/deps/repos.ts: ${unknown.join(', ')}`);
  const present = chosen.filter((r) => existsSync(gitdirOf(mirrors, r.repo)));
  return { present, skipped: chosen.filter((r) => !present.includes(r)).map((r) => r.repo) };
}

/** The map's manifests of one commit, built the way a run builds its map over a local repository. */
export async function mapManifests(gitdir: string, repo: string, commit: string): Promise<ManifestRecord[]> {
  const workspace = await openWorkspace({ fs: nodeFs, gitdir, commitSha: commit });
  const contents = new FileContents(workspace);
  const [owner, name] = repo.split('/');
  const map = await buildRepoMap({ workspace, owner, repo: name, rules: defaultPathRules(), policyDigest: 'eval', contents });
  return map.manifests;
}

/** The census's rule: manifests under test-fixture or ignored directories are counted, not read. */
export function leftOutByMap(path: string): boolean {
  return isUnderFixtureDir(path) || ignoredDirOf(path) !== undefined;
}

/** Renovate's extraction and the map's manifests for each present repository, compared. */
export async function runDeps(options: {
  mirrors: string;
  only?: readonly string[];
  log?: (line: string) => void;
}): Promise<{ repos: RepoParity[]; skipped: string[] }> {
  const { present, skipped } = presentRepos(options.mirrors, options.only);
  const repos: RepoParity[] = [];
  for (const r of present) {
    const gitdir = gitdirOf(options.mirrors, r.repo);
    const extraction = await renovateExtraction({ repo: r.repo, gitdir, commit: r.commit, log: options.log });
    const manifests = await mapManifests(gitdir, r.repo, r.commit);
    repos.push(compareRepo(r.repo, r.commit, extraction, manifests, { leftOut: leftOutByMap }));
  }
  return { repos, skipped };
}
