import { existsSync } from 'node:fs';
import { createNodeSyntaxService } from '../../src/app/local/node-grammar-loader.js';
import { nodeFs } from '../../src/app/local/node-fs.js';
import { groundProse } from '../../src/core/pipeline/ground-prose.js';
import { editablePaths } from '../../src/core/pipeline/pipeline-env.js';
import { policyViews } from '../../src/core/paths/policy-views.js';
import { defaultPolicy } from '../../src/core/policy/agent-policy.js';
import { buildRepoMap } from '../../src/core/repomap/build-repo-map.js';
import { FileContents } from '../../src/core/repomap/file-contents.js';
import type { RepoMap } from '../../src/core/repomap/repo-map-schema.js';
import { openWorkspace, type Workspace } from '../../src/core/workspace/workspace.js';
import { gitdirOf } from '../deps/evaluate.js';
import { PROSE_CASES, type ProseCase } from './cases.js';
import { scoreProse, type ProducedSteps, type ProseScore } from './score.js';

/** One checkout's map and contents, shared by the cases pinned to the same commit. */
interface Checkout {
  workspace: Workspace;
  map: RepoMap;
  contents: FileContents;
}

/**
 * Every corpus case whose mirror is present, read and grounded as a run with no task block and
 * `agent.inferSteps: run` would (the default policy's path rules, no model): what runs is
 * scored against the block the real commit applied, or against "must not run".
 */
export async function runProse(options: {
  mirrors: string;
  log?: (line: string) => void;
}): Promise<{ score: ProseScore; skipped: string[]; ms: number[]; notRun: Map<string, string> }> {
  const syntax = await createNodeSyntaxService();
  // The default policy's rules, as a run on a repository without `.agent-policy.yaml` has them.
  const { rules } = policyViews(defaultPolicy());
  const checkouts = new Map<string, Checkout>();
  const produced = new Map<string, ProducedSteps>();
  const present: ProseCase[] = [];
  const skipped: string[] = [];
  const ms: number[] = [];
  const notRun = new Map<string, string>();
  for (const c of PROSE_CASES) {
    const gitdir = gitdirOf(options.mirrors, c.repo);
    if (!existsSync(gitdir)) {
      skipped.push(c.id);
      continue;
    }
    const key = `${c.repo}@${c.commit}`;
    let checkout = checkouts.get(key);
    if (!checkout) {
      const workspace = await openWorkspace({ fs: nodeFs, gitdir, commitSha: c.commit });
      const contents = new FileContents(workspace);
      const [owner, repo] = c.repo.split('/');
      const map = await buildRepoMap({ workspace, owner, repo, rules, policyDigest: 'eval', contents });
      checkout = { workspace, map, contents };
      checkouts.set(key, checkout);
      options.log?.(`${key}: map built`);
    }
    const { workspace, map, contents } = checkout;
    const started = performance.now();
    const inferred = await groundProse(
      { title: c.title, body: c.body },
      {
        map,
        editable: editablePaths(workspace, rules),
        read: (p) => contents.text(p),
        isLockfile: rules.isLockfile,
        syntax,
      },
      { mode: 'run' },
    );
    ms.push(performance.now() - started);
    produced.set(c.id, inferred.steps);
    const why = [...inferred.readings.filter((r) => !r.grounded).map((r) => r.why ?? ''), ...inferred.unread.map((u) => u.why)];
    if (why.length > 0) notRun.set(c.id, why.join('; '));
    present.push(c);
  }
  return { score: scoreProse(present, produced), skipped, ms, notRun };
}
