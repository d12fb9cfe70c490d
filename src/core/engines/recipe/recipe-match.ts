import type { FileRecipeResult } from './recipe-types.js';

/** One place where a recipe step would change a file. */
export interface RecipeMatch {
  /** 1-based line in the current text. */
  line: number;
  /** That line as it is now (trimmed, at most 200 characters). */
  snippet: string;
  detail: string;
}

/** A match's line as target selection shows it: the first line, trimmed, at most 200 characters. */
export function clip(lines: string): string {
  return lines.split('\n')[0].trim().slice(0, 200);
}

/** Each edited region of a file edit is a match. */
export function editMatches(result: FileRecipeResult | undefined): RecipeMatch[] {
  return (result?.edits ?? []).map((edit) => ({ line: edit.line, snippet: clip(edit.before), detail: `becomes ${clip(edit.after)}` }));
}
