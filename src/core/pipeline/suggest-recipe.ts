import { allRecipes } from '../engines/recipe/registry.js';
import { RecipeStep } from '../task/recipe-steps.js';

/** Only the start of a long objective is read: a recipe is named up front, and the cost stays small. */
const MAX_TEXT = 4_000;
const MAX_SUGGESTIONS = 5;

/**
 * Recipe steps a task without steps plainly names in its words ("rename `OrderDao` to
 * `OrderRepository`", "migrate from javax.persistence to jakarta.persistence", "bump lodash to
 * 4.17.21", "replace `foo` with `bar`"; each recipe's `suggestions`), in the order they appear. Only steps the task block
 * schema accepts are returned; they are suggestions for a maintainer to check, never run as is.
 */
export function suggestRecipeSteps(text: { title: string; objective: string }): RecipeStep[] {
  const source = `${text.title}\n${text.objective.slice(0, MAX_TEXT)}`;
  const found: { at: number; step: RecipeStep }[] = [];
  for (const { pattern: re, step } of allRecipes().flatMap((recipe) => recipe.suggestions)) {
    re.lastIndex = 0;
    for (let m = re.exec(source); m; m = re.exec(source)) {
      const parsed = RecipeStep.safeParse(step(m));
      if (parsed.success) found.push({ at: m.index, step: parsed.data });
    }
  }
  const seen = new Set<string>();
  const out: RecipeStep[] = [];
  for (const { step } of found.sort((a, b) => a.at - b.at)) {
    const key = JSON.stringify(step);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(step);
  }
  return out.slice(0, MAX_SUGGESTIONS);
}
