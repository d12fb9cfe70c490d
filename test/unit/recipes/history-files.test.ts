import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { applyRecipe } from '../../../src/core/engines/recipe/apply-recipe.js';
import { historyGuard } from '../../../src/core/engines/recipe/history-files.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const changelog = '# Changelog\n\n## 2.0.0\n- `interface{}` replaced by `any` in new APIs\n\n## 1.4.0\n- `Get(key string) interface{}` added\n';
const files = {
  'CHANGELOG.md': changelog,
  'docs/release-notes/v1.md': 'Values are `interface{}`.\n',
  'README.md': 'Call `Get` to read an `interface{}`.\n',
  'cache.go': 'package cache\n\nfunc Get(key string) interface{} { return nil }\n',
};
const step = { recipe: 'replace', find: 'interface{}', replace: 'any' };

async function run(stepInput: Record<string, unknown>, taskPaths?: string[], editHistory?: boolean) {
  const repo = await createMemoryRepo(files);
  // The pipeline hands the recipe the paths already narrowed to the task's scope.
  const paths = repo.workspace.paths().filter((p) => !taskPaths || taskPaths.includes(p));
  const result = await applyRecipe(RecipeStep.parse(stepInput), repo.workspace, {
    paths,
    syntax,
    isEditable: () => true,
    taskPaths,
    editHistory,
    rules: defaultPathRules(),
  });
  return { repo, result };
}

describe('recipes leave release history alone', () => {
  it('a literal replace edits code and docs but not the changelog or release notes, and says what it left', async () => {
    const { repo, result } = await run(step);
    expect(result.changedFiles.map((f) => f.path)).toEqual(['README.md', 'cache.go']);
    expect(await repo.workspace.readText('CHANGELOG.md')).toBe(changelog);
    expect(result.skipped).toEqual(
      expect.arrayContaining([
        { path: 'CHANGELOG.md', reason: 'HISTORY' },
        { path: 'docs/release-notes/v1.md', reason: 'HISTORY' },
      ]),
    );
    expect(result.notes).toEqual(
      expect.arrayContaining([
        "CHANGELOG.md: 2 occurrences left (history: name it in the task's paths to change it)",
        "docs/release-notes/v1.md: 1 occurrence left (history: name it in the task's paths to change it)",
      ]),
    );
  });

  it('a history file named in the task or step paths is edited', async () => {
    const byTask = await run(step, ['CHANGELOG.md', 'cache.go']);
    expect(byTask.result.changedFiles.map((f) => f.path)).toEqual(['CHANGELOG.md', 'cache.go']);
    const byStep = await run({ ...step, paths: ['**/release-notes/**'] });
    expect(byStep.result.changedFiles.map((f) => f.path)).toEqual(['README.md', 'cache.go', 'docs/release-notes/v1.md']);
    expect(byStep.result.skipped).toEqual([{ path: 'CHANGELOG.md', reason: 'HISTORY' }]);
  });

  it('the policy can let recipes edit history everywhere (editRules.historyFiles: edited)', async () => {
    const { result } = await run(step, undefined, true);
    expect(result.changedFiles.map((f) => f.path)).toEqual(['CHANGELOG.md', 'README.md', 'cache.go', 'docs/release-notes/v1.md']);
    expect(result.skipped).toEqual([]);
  });

  it('rename-symbol leaves it too; a file without occurrences adds no note', async () => {
    const { result } = await run({ recipe: 'rename-symbol', from: 'Get', to: 'Load' });
    expect(result.changedFiles.map((f) => f.path)).toEqual(['cache.go']);
    expect(result.notes.some((n) => n.startsWith('CHANGELOG.md'))).toBe(false);
  });

  it.each([
    ['CHANGELOG.md', 'CHANGELOG.md', true],
    ['**/CHANGELOG*', 'packages/a/CHANGELOG.md', true],
    ['packages/*/CHANGELOG.md', 'packages/a/CHANGELOG.md', true],
    ['changelog.d', 'changelog.d/123.feature.md', true],
    ['docs', 'docs/changelog.md', false],
    ['**/*.md', 'CHANGELOG.md', false],
    ['packages/a', 'packages/a/CHANGELOG.md', false],
  ])('the glob %s names %s: %s', (glob, path, named) => {
    const leave = historyGuard(RecipeStep.parse({ ...step, paths: [glob] }), [], defaultPathRules().isHistory);
    expect(leave(path)).toBe(!named);
  });

  it('bump-dependency is not concerned (manifests are not history)', () => {
    expect(historyGuard(RecipeStep.parse({ recipe: 'bump-dependency', package: 'x', to: '2.0.0' }), [], defaultPathRules().isHistory)('CHANGELOG.md')).toBe(
      false,
    );
  });
});
