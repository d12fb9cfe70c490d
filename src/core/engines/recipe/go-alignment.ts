import { realignGoEdit } from './gofmt-realign-edit.js';
import type { FileRecipeResult, RecipeContext } from './recipe-types.js';

type Edit<S> = (step: S, file: { path: string; text: string }, ctx: RecipeContext) => FileRecipeResult | undefined;

/** A file edit that, in Go, brings the alignment of the edited blocks back to what gofmt would print. */
export function withGoAlignment<S>(edit: Edit<S>): Edit<S> {
  return (step, file, ctx) => {
    const result = edit(step, file, ctx);
    return result && result.edits.length > 0 && ctx.syntax.languageFor(file.path) === 'go' ? realignGoEdit(file.text, result, ctx.syntax) : result;
  };
}
