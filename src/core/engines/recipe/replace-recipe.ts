import type { ReplaceStep } from '../../task/recipe-steps.js';
import { compileUserRegex, expandReplacement, type UserRegex } from '../../util/user-regex.js';
import type { FileRecipeResult, SpanEdit } from './recipe-types.js';
import { applySpanEdits } from './span-edits.js';

const IDENT = /[A-Za-z0-9_$]/;

/** A step is applied to every candidate file of a repository: its pattern is compiled once. */
const compiled = new WeakMap<ReplaceStep, UserRegex>();

function patternOf(step: ReplaceStep): UserRegex {
  let pattern = compiled.get(step);
  if (!pattern) compiled.set(step, (pattern = compileUserRegex(step.find, step.flags ?? '', { literal: !step.regex })));
  return pattern;
}

/**
 * A text replacement over the whole file (strings and comments included). Literal by default;
 * with `regex` a JavaScript-syntax pattern plus `flags`, run on a linear-time engine (no
 * backreferences or lookaround; `$1`-style groups in the replacement). With `wordBoundary`
 * (auto or true) a literal that begins or ends with an identifier character must not touch
 * another one there.
 */
export function applyReplace(step: ReplaceStep, text: string): FileRecipeResult | undefined {
  const regex = step.regex ?? false;
  // A case-sensitive literal absent from the text cannot match: most files are ruled out here.
  if (!regex && !(step.flags ?? '').includes('i') && !text.includes(step.find)) return undefined;
  const pattern = patternOf(step);
  const boundary = !regex && (step.wordBoundary ?? 'auto') !== false;
  const guardStart = boundary && IDENT.test(step.find[0]);
  const guardEnd = boundary && IDENT.test(step.find[step.find.length - 1]);
  const spans: SpanEdit[] = [];
  if (regex) {
    for (const match of pattern.matchAll(text)) spans.push({ start: match.index, end: match.end, text: expandReplacement(step.replace, match) });
    return applySpanEdits(text, spans);
  }
  // A literal is never empty; after a rejected occurrence a valid one may start inside it.
  for (let match = pattern.exec(text, 0); match;) {
    const { index: start, end } = match;
    const touches = (guardStart && start > 0 && IDENT.test(text[start - 1])) || (guardEnd && end < text.length && IDENT.test(text[end]));
    if (!touches) spans.push({ start, end, text: step.replace });
    match = pattern.exec(text, touches ? start + 1 : end);
  }
  return applySpanEdits(text, spans);
}
