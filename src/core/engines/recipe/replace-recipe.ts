import type { ReplaceStep } from '../../task/recipe-steps.js';
import type { FileRecipeResult, SpanEdit } from './recipe-types.js';
import { applySpanEdits } from './span-edits.js';

const IDENT = /[A-Za-z0-9_$]/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** `$$`, `$&` and `$1`..`$99` in a replacement, as String.prototype.replace reads them. */
function expandReplacement(template: string, match: RegExpExecArray): string {
  return template.replace(/\$(\$|&|\d{1,2})/g, (whole, ref: string) => {
    if (ref === '$') return '$';
    if (ref === '&') return match[0];
    const n = Number(ref);
    if (n >= 1 && n < match.length) return match[n] ?? '';
    if (ref.length === 2 && Number(ref[0]) >= 1 && Number(ref[0]) < match.length) return (match[Number(ref[0])] ?? '') + ref[1];
    return whole;
  });
}

/**
 * A text replacement over the whole file (strings and comments included). Literal by default;
 * with `regex` a global JavaScript RegExp plus `flags`. With `wordBoundary` (auto or true) a
 * literal that begins or ends with an identifier character must not touch another one there.
 */
export function applyReplace(step: ReplaceStep, text: string): FileRecipeResult | undefined {
  const flags = `g${step.flags ?? ''}`;
  const regex = step.regex ?? false;
  const pattern = new RegExp(regex ? step.find : escapeRegExp(step.find), flags);
  const boundary = !regex && (step.wordBoundary ?? 'auto') !== false;
  const guardStart = boundary && IDENT.test(step.find[0]);
  const guardEnd = boundary && IDENT.test(step.find[step.find.length - 1]);
  const spans: SpanEdit[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    if (match[0].length === 0) {
      // An empty match would never advance; step over one code point.
      pattern.lastIndex = start + (text.codePointAt(start)! > 0xffff ? 2 : 1);
      if (start > text.length) break;
    }
    const touches = (guardStart && start > 0 && IDENT.test(text[start - 1])) || (guardEnd && end < text.length && IDENT.test(text[end]));
    if (touches) {
      // A later, valid occurrence may start inside this rejected one.
      if (match[0].length > 0) pattern.lastIndex = start + 1;
      continue;
    }
    spans.push({ start, end, text: regex ? expandReplacement(step.replace, match) : step.replace });
  }
  return applySpanEdits(text, spans);
}
