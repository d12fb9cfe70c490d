import { describe, expect, it } from 'vitest';
import { renderAgentBlock } from '../../../src/core/phases/analysis-report.js';
import { suggestRecipeSteps } from '../../../src/core/pipeline/suggest-recipe.js';
import { parseTask } from '../../../src/core/task/parse-task.js';

describe('suggestRecipeSteps (analysis report task block)', () => {
  it('reads the recipes a task names plainly, in the order they appear', () => {
    const steps = suggestRecipeSteps({
      title: 'Rename the class `OrderDao` to `OrderRepository`',
      objective:
        'Then migrate imports from javax.persistence to jakarta.persistence, bump org.springframework.boot:spring-boot-starter-parent from 3.1.5 to 3.2.5 and replace `legacyUrl` with `baseUrl`.',
    });
    expect(steps).toEqual([
      { recipe: 'rename-symbol', from: 'OrderDao', to: 'OrderRepository', kind: 'class' },
      { recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' },
      { recipe: 'bump-dependency', package: 'org.springframework.boot:spring-boot-starter-parent', to: '3.2.5' },
      { recipe: 'replace', find: 'legacyUrl', replace: 'baseUrl', regex: false, flags: '', wordBoundary: 'auto' },
    ]);
    // What is suggested is what a pasted block runs.
    const pasted = parseTask({ title: 't', body: '', comment: `/agent run\n${renderAgentBlock({ steps }).join('\n')}`, source: 'github' });
    expect(pasted.steps).toEqual(steps);
  });

  it('suggests nothing for prose that names no recipe, and drops what the schema refuses', () => {
    expect(suggestRecipeSteps({ title: 'Update the docs to 2024 standards', objective: 'Upgrade it to 3 columns. Migrate to the new API.' })).toEqual([]);
    expect(suggestRecipeSteps({ title: 'Where is LegacyAuthClient.exchangeToken still called?', objective: '' })).toEqual([]);
    expect(suggestRecipeSteps({ title: 'rename 9lives to cats', objective: '' })).toEqual([]);
  });

  it('reads only the start of a huge objective, quickly', () => {
    const objective = `${'rename a'.repeat(100_000)} ${'x '.repeat(400_000)}rename Foo to Bar`;
    const started = performance.now();
    expect(suggestRecipeSteps({ title: '', objective })).toEqual([]);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
