import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AppHarness } from './app-harness.js';

const HUMAN = { GIT_AUTHOR_NAME: 'Hana Human', GIT_AUTHOR_EMAIL: 'hana@example.com', GIT_COMMITTER_NAME: 'Hana Human', GIT_COMMITTER_EMAIL: 'hana@example.com', GIT_AUTHOR_DATE: '2026-02-03T06:00:00Z', GIT_COMMITTER_DATE: '2026-02-03T06:00:00Z' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...HUMAN }, encoding: 'utf8' }).trim();
}

/**
 * A maintainer's commit pushed on `branch` of the harness repository with native git, straight
 * into the stand-in's bare repository (as a push to GitHub would land); returns the new head.
 */
export async function pushHumanCommit(h: AppHarness, branch: string, files: Record<string, string>, message: string): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), 'human-commit-'));
  try {
    git(work, 'clone', '-q', '--branch', branch, join(h.standin.gitRoot, `${h.fullName}.git`), 'repo');
    const repo = join(work, 'repo');
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), content);
      git(repo, 'add', path);
    }
    git(repo, 'commit', '-q', '-m', message);
    git(repo, 'push', '-q', 'origin', `HEAD:refs/heads/${branch}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return (await h.standin.resolve(h.fullName, branch))!;
}

/** A commit's parents, read with native git from the stand-in's bare repository. */
export function parentsOf(h: AppHarness, sha: string): string[] {
  return git(h.standin.gitRoot, '--git-dir', join(h.standin.gitRoot, `${h.fullName}.git`), 'rev-list', '--parents', '-n', '1', sha).split(' ').slice(1);
}
