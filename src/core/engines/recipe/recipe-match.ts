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

/**
 * A file edit with the Maven properties a parent pom defines left pending: its matches are the
 * edits, plus each use of a pending property (the recipe edits the parent for it).
 */
export function matchesWithPending(result: (FileRecipeResult & { pending: readonly { property: string }[] }) | undefined, text: string): RecipeMatch[] {
  const out = editMatches(result);
  const lines = text.split('\n');
  for (const { property } of result?.pending ?? []) {
    const index = lines.findIndex((line) => line.includes(`\${${property}}`));
    if (index >= 0) out.push({ line: index + 1, snippet: clip(lines[index]), detail: `version property \${${property}} is defined in a parent pom` });
  }
  return out;
}

/** The file's own result without the pending properties; undefined when it neither edits nor says anything. */
export function ownResult(result: (FileRecipeResult & { pending: unknown }) | undefined): FileRecipeResult | undefined {
  if (!result) return undefined;
  const { pending: _pending, ...rest } = result;
  return rest.edits.length || rest.notes.length ? rest : undefined;
}
