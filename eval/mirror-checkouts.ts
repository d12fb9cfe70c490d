import { existsSync } from 'node:fs';
import { nodeFs } from '../src/app/local/node-fs.js';
import type { PathRules } from '../src/core/paths/path-rules.js';
import { buildRepoMap } from '../src/core/repomap/build-repo-map.js';
import { FileContents } from '../src/core/repomap/file-contents.js';
import type { RepoMap } from '../src/core/repomap/repo-map-schema.js';
import { openWorkspace, type Workspace } from '../src/core/workspace/workspace.js';
import { gitdirOf } from './deps/evaluate.js';

/** A repository at one commit, read from its local mirror, with its map built once. */
export interface Checkout {
  workspace: Workspace;
  map: RepoMap;
  contents: FileContents;
}

/**
 * The evals' checkouts of mirrored repositories, each opened and mapped once per repository and
 * commit however many cases use it. `at` is undefined when the repository's mirror is absent.
 */
export function mirrorCheckouts(mirrors: string, rules: PathRules, log?: (line: string) => void) {
  const checkouts = new Map<string, Checkout>();
  return {
    async at(repoName: string, commit: string): Promise<Checkout | undefined> {
      const gitdir = gitdirOf(mirrors, repoName);
      if (!existsSync(gitdir)) return undefined;
      const key = `${repoName}@${commit}`;
      let checkout = checkouts.get(key);
      if (!checkout) {
        const workspace = await openWorkspace({ fs: nodeFs, gitdir, commitSha: commit });
        const contents = new FileContents(workspace);
        const [owner, repo] = repoName.split('/');
        const map = await buildRepoMap({ workspace, owner, repo, rules, policyDigest: 'eval', contents });
        checkout = { workspace, map, contents };
        checkouts.set(key, checkout);
        log?.(`${key}: map built`);
      }
      return checkout;
    },
  };
}
