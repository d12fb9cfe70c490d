import type { Node, Tree } from 'web-tree-sitter';
import { LineIndex } from './line-index.js';
import type { ParseProblem } from './types.js';

/** More than this many problems in one file say nothing new. */
const MAX_PROBLEMS = 50;

/** ERROR and MISSING nodes of a parsed file; the walk only enters subtrees that contain an error. */
export function codeParseProblems(tree: Tree, source: string): ParseProblem[] {
  const root = tree.rootNode;
  if (!root.hasError) return [];
  const lines = new LineIndex(source);
  const problems: ParseProblem[] = [];
  const visit = (node: Node): void => {
    if (problems.length >= MAX_PROBLEMS) return;
    if (node.isMissing) {
      const { line, column } = lines.position(node.startIndex);
      problems.push({ line, column, message: `missing ${node.type}`, type: 'MISSING_NODE' });
      return;
    }
    if (node.isError) {
      const { line, column } = lines.position(node.startIndex);
      const text = node.text.split('\n')[0].trim().slice(0, 40);
      problems.push({ line, column, message: text ? `unexpected '${text}'` : 'syntax error', type: 'SYNTAX_ERROR' });
    }
    for (const child of node.children) if (child && (child.hasError || child.isMissing)) visit(child);
  };
  visit(root);
  return problems;
}
