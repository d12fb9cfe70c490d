import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { AppHarness } from './app-harness.js';
import type { GitHubStandin } from './github-standin/index.js';

export interface PushedCommit {
  before: string;
  after: string;
}

/**
 * Commit files on a branch of one of the stand-in's bare repositories with git plumbing, as a
 * person pushing to GitHub would (the ref moves only if it is still at the commit read first).
 * Fixed author and dates: the same call gives the same SHA.
 */
export function pushCommit(
  standin: GitHubStandin,
  fullName: string,
  branch: string,
  files: Record<string, string>,
  options: { message?: string; author?: { name: string; email: string }; date?: string } = {},
): PushedCommit {
  const gitdir = join(standin.gitRoot, `${fullName}.git`);
  const index = join(gitdir, 'push-commit-index');
  const who = options.author ?? { name: 'maya', email: 'maya@example.com' };
  const date = options.date ?? '2026-02-03T05:00:00Z';
  const env = {
    ...process.env,
    GIT_DIR: gitdir,
    GIT_INDEX_FILE: index,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  };
  const git = (args: string[], input?: string) =>
    execFileSync('git', args, { env, input, maxBuffer: 64 * 1024 * 1024 })
      .toString()
      .trim();
  const before = git(['rev-parse', `refs/heads/${branch}`]);
  git(['read-tree', before]);
  for (const [path, content] of Object.entries(files)) {
    const blob = git(['hash-object', '-w', '--stdin'], content);
    git(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`]);
  }
  const tree = git(['write-tree']);
  const after = git(['commit-tree', tree, '-p', before, '-m', options.message ?? `change ${Object.keys(files).join(', ')}`]);
  git(['update-ref', `refs/heads/${branch}`, after, before]);
  return { before, after };
}

/** A maintainer's commit pushed on `branch` of the harness repository, as a push to GitHub would land; returns the new head. */
export async function pushHumanCommit(h: AppHarness, branch: string, files: Record<string, string>, message: string): Promise<string> {
  return pushCommit(h.standin, h.fullName, branch, files, { message, author: { name: 'Hana Human', email: 'hana@example.com' }, date: '2026-02-03T06:00:00Z' })
    .after;
}

/** A commit's parents, read with native git from the stand-in's bare repository. */
export function parentsOf(h: AppHarness, sha: string): string[] {
  const out = execFileSync('git', ['--git-dir', join(h.standin.gitRoot, `${h.fullName}.git`), 'rev-list', '--parents', '-n', '1', sha], { encoding: 'utf8' });
  return out.trim().split(' ').slice(1);
}
