import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { recipeCandidates } from '../../../src/core/engines/recipe/recipe-candidates.js';
import { recipeFor } from '../../../src/core/engines/recipe/registry.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';
import { suggestRecipeSteps } from '../../../src/core/pipeline/suggest-recipe.js';
import { describeSteps } from '../../../src/core/publish/pr-text.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { deriveSearchTerms } from '../../../src/core/task/search-terms.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';
import { runRecipeStep } from '../../helpers/run-recipe.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const remove = (pkg: string) => ({ recipe: 'remove-dependency', package: pkg });

describe('remove-dependency', () => {
  it('drops the package.json entry, and the comma before it when it was the last of its section', async () => {
    const pkg =
      '{\n  "name": "app",\n  "dependencies": {\n    "express": "^4.19.2",\n    "left-pad": "1.3.0"\n  },\n  "devDependencies": {\n    "left-pad": "1.3.0",\n    "vitest": "^1.0.0"\n  }\n}\n';
    const run = await runRecipeStep(syntax, { 'package.json': pkg, 'package-lock.json': '{}\n', 'src/pad.js': "require('left-pad');\n" }, remove('left-pad'));
    expect(await run.text('package.json')).toBe(
      '{\n  "name": "app",\n  "dependencies": {\n    "express": "^4.19.2"\n  },\n  "devDependencies": {\n    "vitest": "^1.0.0"\n  }\n}\n',
    );
    expect(JSON.parse(await run.text('package.json'))).toEqual({ name: 'app', dependencies: { express: '^4.19.2' }, devDependencies: { vitest: '^1.0.0' } });
    expect(run.changed).toEqual(['package.json']);
    expect(run.result.lockfilesToRefresh).toEqual([{ lockfile: 'package-lock.json', command: 'npm install --package-lock-only' }]);
    expect(run.result.notes).toContain('remove-dependency edits manifests only: code that still imports left-pad must change too');
  });

  it('leaves an entry that shares its line with another, and says so', async () => {
    const run = await runRecipeStep(syntax, { 'package.json': '{ "dependencies": { "a": "1", "left-pad": "1.3.0" } }\n' }, remove('left-pad'));
    expect(run.changed).toEqual([]);
    expect(run.result.notes).toEqual(['package.json: dependencies.left-pad is not alone on its line; left alone']);
  });

  it('names the manifest it could not read, so a broken test fixture is told from the real one', async () => {
    const run = await runRecipeStep(
      syntax,
      { 'package.json': '{ "dependencies": {\n    "left-pad": "1.3.0"\n  }\n}\n', 'test/fixtures/bad/package.json': '{ "dependencies": { "left-pad": \n' },
      remove('left-pad'),
    );
    expect(run.changed).toEqual(['package.json']);
    expect(run.result.notes).toContain('test/fixtures/bad/package.json: not valid JSON; left alone');
  });

  it('drops requirement lines by PEP 503 name, whatever the version clause, and keeps comments and options', async () => {
    const reqs =
      '-r base.txt\n# Requests_Toolbelt is pinned for the uploader\nrequests==2.31.0\nRequests_Toolbelt[socks]>=1.0 ; python_version >= "3.8"\nrequests-oauthlib==1.3.1\n';
    const run = await runRecipeStep(syntax, { 'requirements.txt': reqs }, remove('requests-toolbelt'));
    expect(await run.text('requirements.txt')).toBe(
      '-r base.txt\n# Requests_Toolbelt is pinned for the uploader\nrequests==2.31.0\nrequests-oauthlib==1.3.1\n',
    );
  });

  it('drops a go.mod require line, in a block or on its own, and names go mod tidy for go.sum', async () => {
    const gomod =
      'module example.com/app\n\ngo 1.22\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n\tgolang.org/x/net v0.25.0 // indirect\n)\n\nrequire github.com/pkg/errors/v2 v2.0.0\n';
    const run = await runRecipeStep(syntax, { 'go.mod': gomod, 'go.sum': '' }, remove('github.com/pkg/errors'));
    expect(await run.text('go.mod')).toBe(
      'module example.com/app\n\ngo 1.22\n\nrequire (\n\tgolang.org/x/net v0.25.0 // indirect\n)\n\nrequire github.com/pkg/errors/v2 v2.0.0\n',
    );
    expect(run.result.lockfilesToRefresh).toEqual([{ lockfile: 'go.sum', command: 'go mod tidy' }]);
    const single = await runRecipeStep(syntax, { 'go.mod': 'module m\n\nrequire github.com/pkg/errors v0.9.1' }, remove('github.com/pkg/errors'));
    expect(await single.text('go.mod')).toBe('module m\n');
  });

  it('applied again changes nothing; a manifest without the package is not changed', async () => {
    const run = await runRecipeStep(syntax, { 'requirements.txt': 'flask==3.0.0\n', 'svc/package.json': '{\n  "dependencies": {}\n}\n' }, remove('left-pad'));
    expect(run.changed).toEqual([]);
    expect(run.result.lockfilesToRefresh).toEqual([]);
  });

  it('is a candidate for the manifests it edits only, never lockfiles or source', () => {
    const paths = ['go.mod', 'go.sum', 'package.json', 'package-lock.json', 'pom.xml', 'requirements-dev.txt', 'src/a.ts'];
    expect(recipeCandidates(RecipeStep.parse(remove('x')), paths, defaultPathRules().isLockfile)).toEqual(['go.mod', 'package.json', 'requirements-dev.txt']);
  });

  it('reads as a build change: wording, commit type and search term come from the registry', () => {
    const step = RecipeStep.parse(remove('left-pad'));
    expect(describeSteps([step])).toBe('remove left-pad');
    expect(describeSteps([step, RecipeStep.parse(remove('is-odd'))])).toBe('remove left-pad and is-odd');
    expect(recipeFor(step).commitType).toBe('build');
    expect(deriveSearchTerms({ title: '', objective: '', steps: [step] })).toEqual([
      { term: 'left-pad', kind: 'recipe-parameter', source: 'steps[0].package' },
    ]);
  });

  it('is suggested when a task without steps asks to drop a named dependency', () => {
    expect(
      suggestRecipeSteps({ title: 'Remove the dependency `left-pad`', objective: 'Also drop the unused package is-odd. Remove the dependency on it.' }),
    ).toEqual([
      { recipe: 'remove-dependency', package: 'left-pad' },
      { recipe: 'remove-dependency', package: 'is-odd' },
    ]);
  });
});
