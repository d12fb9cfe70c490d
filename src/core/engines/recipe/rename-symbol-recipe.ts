import type { SyntaxLanguage } from '../../syntax/types.js';
import type { RenameSymbolStep } from '../../task/recipe-steps.js';
import type { FileRecipeResult, RecipeContext, SpanEdit } from './recipe-types.js';
import { applySpanEdits } from './span-edits.js';

/** Leaf node types that are identifiers in code (never string content or comments). */
const IDENTIFIER_TYPES: Record<SyntaxLanguage, Set<string>> = {
  java: new Set(['identifier', 'type_identifier']),
  typescript: new Set(['identifier', 'type_identifier', 'property_identifier', 'shorthand_property_identifier', 'shorthand_property_identifier_pattern']),
  tsx: new Set(['identifier', 'type_identifier', 'property_identifier', 'shorthand_property_identifier', 'shorthand_property_identifier_pattern']),
  javascript: new Set(['identifier', 'property_identifier', 'shorthand_property_identifier', 'shorthand_property_identifier_pattern']),
  python: new Set(['identifier']),
  go: new Set(['identifier', 'type_identifier', 'field_identifier', 'package_identifier']),
};

export const RENAME_NOT_TYPE_AWARE_NOTE =
  'rename-symbol matches identifiers by name through the syntax tree: it is not type-aware, so every identifier with that name is renamed, whatever it refers to; strings and comments are left alone';

/**
 * Rename every identifier named `from` to `to`. Identifiers only, found through tree-sitter;
 * not type-aware (said in the notes).
 */
export function applyRenameSymbol(step: RenameSymbolStep, file: { path: string; text: string }, ctx: RecipeContext): FileRecipeResult | undefined {
  const language = ctx.syntax.languageFor(file.path);
  if (!language || !file.text.includes(step.from)) return undefined;
  const types = IDENTIFIER_TYPES[language];
  const spans: SpanEdit[] = [];
  ctx.syntax.withTree(language, file.text, (tree) => {
    const cursor = tree.walk();
    try {
      for (;;) {
        if (types.has(cursor.nodeType) && cursor.endIndex - cursor.startIndex === step.from.length) {
          if (file.text.slice(cursor.startIndex, cursor.endIndex) === step.from) spans.push({ start: cursor.startIndex, end: cursor.endIndex, text: step.to });
        }
        if (cursor.gotoFirstChild()) continue;
        let moved = false;
        while (!(moved = cursor.gotoNextSibling())) if (!cursor.gotoParent()) break;
        if (!moved) break;
      }
    } finally {
      cursor.delete();
    }
  });
  const notes = [RENAME_NOT_TYPE_AWARE_NOTE];
  if (language === 'java' && (file.path.endsWith(`/${step.from}.java`) || file.path === `${step.from}.java`) && spans.length > 0) {
    notes.push(`${file.path}: the file keeps its name; a public class renamed to ${step.to} must live in ${step.to}.java`);
  }
  return applySpanEdits(file.text, spans, notes);
}
