import type { Node } from 'web-tree-sitter';
import type { TreeSyntaxService } from '../../syntax/create-syntax-service.js';
import type { RenameSymbolStep } from '../../task/recipe-steps.js';

const JAVA_TYPES = new Set(['class_declaration', 'interface_declaration', 'enum_declaration', 'record_declaration', 'annotation_type_declaration']);
const KOTLIN_TYPES = new Set(['class_declaration', 'object_declaration']);

/** The top-level type declarations of a Java or Kotlin file: name, and whether Java declares it `public`. */
function topLevelTypes(language: 'java' | 'kotlin', root: Node): { name: string; isPublic: boolean }[] {
  const out: { name: string; isPublic: boolean }[] = [];
  for (const node of root.namedChildren) {
    if (!node || !(language === 'java' ? JAVA_TYPES : KOTLIN_TYPES).has(node.type)) continue;
    const name = language === 'java' ? node.childForFieldName('name') : node.namedChildren.find((c) => c?.type === 'type_identifier');
    if (!name) continue;
    const modifiers = node.namedChildren.find((c) => c?.type === 'modifiers');
    out.push({ name: name.text, isPublic: modifiers?.children.some((c) => c?.type === 'public') ?? false });
  }
  return out;
}

/**
 * Where a renamed file must move: a public top-level Java type lives in the file of its name
 * (javac refuses `public class PurchaseOrder` in `Order.java`); a Kotlin file named after its
 * class follows the class, as the Kotlin conventions ask. `text` is the file after the rename;
 * undefined when the file stays where it is.
 */
export function movedPath(step: RenameSymbolStep, path: string, text: string, syntax: TreeSyntaxService): string | undefined {
  const language = path.endsWith('.java') ? 'java' : path.endsWith('.kt') ? 'kotlin' : undefined;
  if (!language) return undefined;
  const slash = path.lastIndexOf('/');
  const extension = language === 'java' ? '.java' : '.kt';
  if (path.slice(slash + 1) !== `${step.from}${extension}`) return undefined;
  const types = syntax.withTree(language, text, (tree) => topLevelTypes(language, tree.rootNode));
  if (types.some((t) => t.name === step.from)) return undefined;
  const renamed = types.find((t) => t.name === step.to);
  if (!renamed || (language === 'java' && !renamed.isPublic)) return undefined;
  return `${path.slice(0, slash + 1)}${step.to}${extension}`;
}

/**
 * The files a rename may create by moving one (`Order.java` → `PurchaseOrder.java`), from names
 * alone: planning lets the change phase write exactly these besides the files it edits.
 */
export function possibleMoveTargets(step: RenameSymbolStep, paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const path of paths) {
    const slash = path.lastIndexOf('/');
    const name = path.slice(slash + 1);
    for (const extension of ['.java', '.kt']) if (name === `${step.from}${extension}`) out.push(`${path.slice(0, slash + 1)}${step.to}${extension}`);
  }
  return out;
}
