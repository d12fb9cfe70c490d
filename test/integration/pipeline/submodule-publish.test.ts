import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { git } from '../../fixtures/make-repo.js';
import { cli, makeWorkingCopy, type CliOutcome } from '../cli/cli-harness.js';
import { EXPECTED_CHANGED, MIGRATION_POLICY, MIGRATION_TASK, removeRoot, tempRoot } from './pipeline-harness.js';

/**
 * A repository with a git submodule is the normal case: `draftsman run --publish` ingests it with
 * the gitlink opaque, runs the recipes, publishes, and the published tree keeps the gitlink
 * entry exactly as the base had it (compared with native `git ls-tree`).
 */
const SUBMODULE = 'libs/shared';
const SUBMODULE_COMMIT = '0123456789abcdef0123456789abcdef01234567';

let root: string;
let repo: string;
let base: string;
let out: string;
let run: CliOutcome;

beforeAll(async () => {
  root = tempRoot('submodule');
  repo = join(root, 'orders');
  makeWorkingCopy(repo, {
    ...mavenMultiModuleRepo(),
    '.agent-policy.yaml': MIGRATION_POLICY,
    '.gitmodules': `[submodule "${SUBMODULE}"]\n\tpath = ${SUBMODULE}\n\turl = https://example.test/shared.git\n`,
  });
  mkdirSync(join(repo, SUBMODULE), { recursive: true });
  git(['update-index', '--add', '--cacheinfo', `160000,${SUBMODULE_COMMIT},${SUBMODULE}`], { cwd: repo });
  git(['commit', '-q', '-m', 'add the shared submodule'], { cwd: repo });
  base = git(['rev-parse', 'HEAD'], { cwd: repo });
  const taskFile = join(root, 'task.md');
  writeFileSync(taskFile, MIGRATION_TASK);
  out = join(root, 'state');
  run = await cli(['run', repo, '--task-file', taskFile, '--out', out, '--json', '--publish']);
}, 120_000);

afterAll(() => removeRoot(root));

describe('draftsman run --publish on a repository with a submodule', () => {
  it('publishes the recipe change; the gitlink entry is byte-identical in the published tree', () => {
    expect(run.json).toMatchObject({ status: 'COMPLETED', baseCommitSha: base });
    expect(run.code).toBe(0);
    const head = run.json!.headCommitSha as string;
    expect(git(['rev-parse', `refs/heads/${run.json!.agentBranch}`], { cwd: repo })).toBe(head);
    const entry = (commit: string) => git(['ls-tree', commit, '--', SUBMODULE], { cwd: repo });
    expect(entry(base)).toBe(`160000 commit ${SUBMODULE_COMMIT}\t${SUBMODULE}`);
    expect(entry(head)).toBe(entry(base));
    expect(git(['ls-tree', '-r', head, '--', '.gitmodules'], { cwd: repo })).toBe(git(['ls-tree', '-r', base, '--', '.gitmodules'], { cwd: repo }));
    expect(
      git(['diff', '--name-only', `${base}..${head}`], { cwd: repo })
        .split('\n')
        .sort(),
    ).toEqual(EXPECTED_CHANGED);
  });

  it('reports the submodule in ingestion.json and in the run report', () => {
    const ingestion = JSON.parse(readFileSync(run.json!.artifacts['ingestion.json'], 'utf8'));
    expect(ingestion.status).toBe('READY_WITH_WARNINGS');
    expect(ingestion.warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'SUBMODULE_PRESENT', data: expect.objectContaining({ paths: ['.gitmodules', SUBMODULE] }) })]),
    );
    const body = readFileSync(run.json!.artifacts['pr-body.md'], 'utf8');
    expect(body).toContain(`SUBMODULE_OPAQUE: submodule ${SUBMODULE} kept as it is: never fetched, read or edited`);
  });
});
