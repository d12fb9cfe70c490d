import { lockfileRefreshCommand } from '../policy/lockfiles.js';
import { dryRunStep } from '../engines/recipe/recipe-candidates.js';
import { recipeFor } from '../engines/recipe/registry.js';
import { compileGlobs } from '../paths/glob.js';
import type { RecipeStep } from '../task/recipe-steps.js';
import { noteFound, type SelectionContext } from './selection-context.js';

/** The engine decides which files it could change and where, by applying the step in memory. */
async function noteRecipeMatches(ctx: SelectionContext, step: RecipeStep, term: string): Promise<void> {
  const ownScope = step.paths ? compileGlobs(step.paths) : () => true;
  const run = await dryRunStep(
    step,
    ctx.candidates.filter((c) => ownScope(c) && !ctx.rules.isLockfile(c)),
    (p) => ctx.contents.text(p),
    { syntax: ctx.syntax },
    ctx.rules.isLockfile,
  );
  ctx.filesSearched += run.searched;
  for (const { path, why } of run.leftAlone) {
    ctx.leftAlone.push(`${path}: ${why}`);
    ctx.excluded.set(path, `${step.recipe} left it alone: ${why}`);
  }
  for (const { path, matches } of run.files) {
    const f = noteFound(ctx, path);
    f.score = Math.max(f.score, 0.9);
    f.reasons.push(`${step.recipe} can change this file (${matches[0].detail})`);
    for (const m of matches.slice(0, 10)) f.evidence.push({ type: 'recipe', line: m.line, snippet: m.snippet, term, detail: `${step.recipe}: ${m.detail}` });
  }
}

/** A recipe that changes a dependency leaves lockfiles alone: each one in scope is excluded with the command that refreshes it. */
function excludeLockfiles(ctx: SelectionContext, pkg: string): void {
  for (const p of ctx.all.filter((x) => ctx.rules.isLockfile(x) && ctx.inScope(x))) {
    const cmd = lockfileRefreshCommand(p, pkg) ?? 'the package manager';
    ctx.excluded.set(p, `lockfile: not edited; refresh with ${cmd}`);
    ctx.warnings.push({ code: 'LOCKFILE_NEEDS_REFRESH', message: `${p} must be refreshed with ${cmd}`, data: { path: p, command: cmd } });
  }
}

/** Recipe steps select exactly the files each recipe can change. Returns the strategy's name. */
export async function findRecipeTargets(ctx: SelectionContext): Promise<string> {
  for (const step of ctx.task.steps) {
    const recipe = recipeFor(step);
    const term = recipe.targetTerm(step);
    ctx.terms.push(term);
    await noteRecipeMatches(ctx, step, term);
    const dependency = recipe.dependency(step);
    if (dependency !== undefined) excludeLockfiles(ctx, dependency);
  }
  return ctx.scopeGlobs.length ? 'explicit_scope_plus_recipe_candidates' : 'recipe_candidates';
}
