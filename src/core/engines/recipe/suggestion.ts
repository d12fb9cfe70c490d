/**
 * A way a task's prose plainly names a recipe step ("bump lodash to 4.17.21"): a global pattern
 * and the step its match spells (the task block schema then checks it; undefined drops it).
 */
export interface RecipeSuggestion {
  pattern: RegExp;
  step(match: RegExpExecArray): unknown;
}

/** An identifier, as a rename names it. */
export const IDENT = '[A-Za-z_$][\\w$]*';
/** A package or module path: at least one dot or slash (`javax.persistence`, `github.com/x/y`). */
export const MODULE = '[A-Za-z_@][\\w@-]*(?:[./][\\w@-]+)+';
/** Words that follow "bump" or "remove the dependency" in prose without naming a package. */
export const NOT_A_PACKAGE = new Set(['the', 'a', 'an', 'all', 'our', 'every', 'dependency', 'dependencies', 'version', 'it', 'this', 'that']);
