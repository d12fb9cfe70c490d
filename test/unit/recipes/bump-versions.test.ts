import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { buildRepoMap } from '../../../src/core/repomap/build-repo-map.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { selectTargets } from '../../../src/core/targets/select-targets.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';
import type { TaskContract } from '../../../src/core/task/task-contract.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { pathRulesFor } from '../../helpers/path-rules.js';
import { runRecipeStep } from '../../helpers/run-recipe.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const pom = (version: string) =>
  `<project>\n  <dependencies>\n    <dependency>\n      <groupId>com.fasterxml.jackson.core</groupId>\n      <artifactId>jackson-databind</artifactId>\n      <version>${version}</version>\n    </dependency>\n  </dependencies>\n</project>\n`;
const npm = (deps: Record<string, string>) => `${JSON.stringify({ name: 'web', dependencies: deps }, null, 2)}\n`;

describe('bump-dependency weighs versions by the ecosystem', () => {
  it('refuses a downgrade and says how to allow it', async () => {
    const run = await runRecipeStep(
      syntax,
      { 'pom.xml': pom('2.14.0') },
      { recipe: 'bump-dependency', package: 'com.fasterxml.jackson.core:jackson-databind', to: '2.13.1' },
    );
    expect(run.changed).toEqual([]);
    expect(run.result.notes).toEqual([
      'pom.xml: com.fasterxml.jackson.core:jackson-databind 2.14.0 → 2.13.1 is a downgrade; left alone (add `allowDowngrade: true` to the step to apply it)',
    ]);
  });

  it('applies a downgrade the step allows, and records it as one', async () => {
    const run = await runRecipeStep(
      syntax,
      { 'pom.xml': pom('2.14.0') },
      { recipe: 'bump-dependency', package: 'com.fasterxml.jackson.core:jackson-databind', to: '2.13.1', allowDowngrade: true },
    );
    expect(await run.text('pom.xml')).toContain('<version>2.13.1</version>');
    expect(run.result.updates).toEqual([{ package: 'com.fasterxml.jackson.core:jackson-databind', from: '2.14.0', to: '2.13.1', updateType: 'downgrade' }]);
  });

  it('records the kind of each update, once per version move', async () => {
    const run = await runRecipeStep(
      syntax,
      { 'package.json': npm({ react: '^16.14.0' }), 'packages/admin/package.json': npm({ react: '^16.14.0' }) },
      { recipe: 'bump-dependency', package: 'react', to: '17.0.2' },
    );
    expect(run.changed).toEqual(['package.json', 'packages/admin/package.json']);
    expect(run.result.updates).toEqual([{ package: 'react', from: '16.14.0', to: '17.0.2', updateType: 'major' }]);
  });

  it('matches a Dependabot from (the resolved version) against the declared range, keeping its operator', async () => {
    const run = await runRecipeStep(
      syntax,
      { 'package.json': npm({ react: '^16.0.0' }) },
      { recipe: 'bump-dependency', package: 'react', from: '16.5.0', to: '16.14.0' },
    );
    expect(await run.text('package.json')).toContain('"react": "^16.14.0"');
    expect(run.result.updates).toEqual([{ package: 'react', from: '16.0.0', to: '16.14.0', updateType: 'minor' }]);
  });

  it('leaves a range that does not admit from, and target selection says which declaration and what it declares', async () => {
    const files = { 'package.json': npm({ react: '^15.0.0' }), 'src/app.js': "import React from 'react';\n" };
    const repo = await createMemoryRepo(files);
    const rules = pathRulesFor({});
    const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: 'web', rules, policyDigest: 'p' });
    const task: TaskContract = {
      ...{ schemaVersion: 1, title: 't', objective: 'o', mode: 'draft_pr', budgets: {}, searchTerms: [], kind: 'specific', blockSource: 'none', digest: 'd' },
      steps: [RecipeStep.parse({ recipe: 'bump-dependency', package: 'react', from: '16.5.0', to: '17.0.0' })],
    };
    const selection = await selectTargets({ workspace: repo.workspace, task, map, rules, syntax });
    expect(selection.status).toBe('FAILED');
    expect(selection.warnings.find((w) => w.code === 'TARGET_SELECTION_EMPTY')?.message).toBe(
      'no file matched the task; package.json: dependencies.react is declared as "^15.0.0", which neither is nor admits from 16.5.0; left alone',
    );
  });

  it('reads requirements by PEP 440: a specifier that admits from is bumped in place', async () => {
    const run = await runRecipeStep(
      syntax,
      { 'requirements.txt': 'requests>=2.28\n' },
      { recipe: 'bump-dependency', package: 'requests', from: '2.31.0', to: '2.32.3' },
    );
    expect(await run.text('requirements.txt')).toBe('requests>=2.32.3\n');
  });
});
