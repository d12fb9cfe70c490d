import type { Tree, TreeCursor } from 'web-tree-sitter';

/**
 * Depth-first, pre-order walk of a tree with one cursor (asking a node for its parent costs a
 * walk from the root, so scopes are tracked along the walk instead). `visit` sees each node at
 * its depth and returns false to skip the node's children; an entry the visit pushes on `scopes`
 * (with that depth) is popped once the walk leaves the node's subtree.
 */
export function walkTree<S extends { depth: number }>(tree: Tree, scopes: S[], visit: (cursor: TreeCursor, depth: number) => boolean): void {
  const cursor = tree.walk();
  let depth = 0;
  try {
    for (;;) {
      if (visit(cursor, depth) && cursor.gotoFirstChild()) {
        depth++;
        continue;
      }
      let moved = false;
      while (!(moved = cursor.gotoNextSibling())) {
        if (!cursor.gotoParent()) break;
        depth--;
      }
      if (!moved) break;
      while (scopes.length && scopes[scopes.length - 1].depth >= depth) scopes.pop();
    }
  } finally {
    cursor.delete();
  }
}
