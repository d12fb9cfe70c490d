import { RecipeStep } from '../task/recipe-steps.js';

/** Only the start of a long objective is read: a recipe is named up front, and the cost stays small. */
const MAX_TEXT = 4_000;
const MAX_SUGGESTIONS = 5;
const IDENT = '[A-Za-z_$][\\w$]*';
/** A package or module path: at least one dot or slash (`javax.persistence`, `github.com/x/y`). */
const MODULE = '[A-Za-z_@][\\w@-]*(?:[./][\\w@-]+)+';
const NOT_A_PACKAGE = new Set(['the', 'a', 'an', 'all', 'our', 'every', 'dependency', 'dependencies', 'version', 'it', 'this', 'that']);

const PATTERNS: readonly { re: RegExp; step: (m: RegExpExecArray) => unknown }[] = [
  {
    re: new RegExp(`\\brename\\s+(?:the\\s+)?(?:(class|interface|function|method|field|variable|type)\\s+)?\`?(${IDENT})\`?\\s+(?:to|into|as)\\s+\`?(${IDENT})\`?`, 'gi'),
    step: (m) => ({ recipe: 'rename-symbol', from: m[2], to: m[3], ...(m[1] ? { kind: m[1].toLowerCase() } : {}) }),
  },
  {
    re: new RegExp(`\\bmigrate\\s+(?:the\\s+)?(?:imports?\\s+)?(?:from\\s+)?\`?(${MODULE})\`?\\s+to\\s+\`?(${MODULE})\`?`, 'gi'),
    step: (m) => ({ recipe: 'migrate-import', from: m[1], to: m[2] }),
  },
  {
    re: /\b(?:bump|upgrade|update)\s+`?([@\w][\w@./:-]*)`?\s+(?:from\s+`?v?[\w.^~+-]+`?\s+)?to\s+`?v?(\d[\w.+-]*)`?/gi,
    step: (m) => (NOT_A_PACKAGE.has(m[1].toLowerCase()) ? undefined : { recipe: 'bump-dependency', package: m[1], to: m[2].replace(/\.$/, '') }),
  },
  {
    re: /\breplace\s+`([^`\n]+)`\s+(?:with|by)\s+`([^`\n]*)`/gi,
    step: (m) => ({ recipe: 'replace', find: m[1], replace: m[2] }),
  },
];

/**
 * Recipe steps a task without steps plainly names in its words ("rename `OrderDao` to
 * `OrderRepository`", "migrate from javax.persistence to jakarta.persistence", "bump lodash to
 * 4.17.21", "replace `foo` with `bar`"), in the order they appear. Only steps the task block
 * schema accepts are returned; they are suggestions for a maintainer to check, never run as is.
 */
export function suggestRecipeSteps(text: { title: string; objective: string }): RecipeStep[] {
  const source = `${text.title}\n${text.objective.slice(0, MAX_TEXT)}`;
  const found: { at: number; step: RecipeStep }[] = [];
  for (const { re, step } of PATTERNS) {
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
