import { describe, expect, it } from 'vitest';
import { MAP_PROFILES, type Recipe } from '../../../src/core/engines/recipe/recipe.js';
import { allRecipes, RECIPES, recipeFor } from '../../../src/core/engines/recipe/registry.js';
import { RECIPE_NAMES, RECIPE_STEPS, RecipeStep } from '../../../src/core/task/recipe-steps.js';
import { COMMIT_TYPES } from '../../../src/core/text/commit-types.js';

/** Every member of the Recipe interface, by what it must be. */
const MEMBERS: Record<keyof Recipe, 'string' | 'function' | 'boolean' | 'object'> = {
  name: 'string',
  step: 'object',
  isCandidate: 'function',
  applyToFile: 'function',
  matches: 'function',
  leftAlone: 'function',
  apply: 'function',
  editsHistory: 'boolean',
  converges: 'boolean',
  dependency: 'function',
  targetTerm: 'function',
  asWritten: 'function',
  wording: 'object',
  commitType: 'string',
  mapProfile: 'string',
  suggestions: 'object',
};

const sorted = (names: readonly string[]) => [...names].sort();

describe('the recipe registry', () => {
  it('registers exactly the recipes the task block accepts, and each task step entry', () => {
    expect(RECIPE_NAMES.length).toBeGreaterThan(0);
    expect(sorted(Object.keys(RECIPES))).toEqual(sorted(RECIPE_NAMES));
    expect(sorted(Object.keys(RECIPE_STEPS))).toEqual(sorted(RECIPE_NAMES));
    expect(sorted(RecipeStep.options.map((option) => option.shape.recipe.value))).toEqual(sorted(RECIPE_NAMES));
  });

  it.each(allRecipes().map((recipe) => [recipe.name, recipe] as const))('%s provides every member', (name, recipe) => {
    for (const [member, type] of Object.entries(MEMBERS)) expect({ member, type: typeof recipe[member as keyof Recipe] }).toEqual({ member, type });
    expect(recipe.name).toBe(name);
    expect(recipe.step).toBe(RECIPE_STEPS[recipe.name]);
    expect(typeof recipe.step.searchParameters).toBe('function');
    expect(typeof recipe.wording.step).toBe('function');
    expect(typeof recipe.wording.several).toBe('function');
    expect(recipe.wording.changeKind).toMatch(/\S/);
    expect([...COMMIT_TYPES, 'by-paths']).toContain(recipe.commitType);
    expect(MAP_PROFILES).toContain(recipe.mapProfile);
  });

  it('finds a step its recipe by the step name', () => {
    const step = RecipeStep.parse({ recipe: 'rename-symbol', from: 'a', to: 'b' });
    expect(recipeFor(step)).toBe(RECIPES['rename-symbol']);
    expect(recipeFor(step).wording.step(step)).toBe('rename a to b');
  });
});
