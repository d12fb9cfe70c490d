import type { Node } from 'web-tree-sitter';

/** What a declaration introduces, as `rename-symbol`'s `kind` names it. */
export type DeclKind = 'class' | 'interface' | 'enum' | 'type' | 'function' | 'method' | 'field' | 'variable';

/**
 * The syntactic role of one identifier occurrence. Decided from the parent nodes only (no types):
 * enough to tell a property declaration from a type of the same name, or a call by identifier
 * from a property access.
 */
export type SymbolRole =
  /**
   * Introduces the name. `binder` is the node whose enclosing scope holds the binding; `container`
   * names the type or object a member belongs to; `lexical` says a member is also a bare name there.
   */
  | { role: 'declaration'; kind: DeclKind; binder: Node; container?: string; lexical?: boolean }
  /** Names an imported or re-exported symbol (`import { x }`, `from m import x`, the last segment of a Java import). */
  | { role: 'import' }
  /** A name in type position; `qualifier` is the dotted path written before it (`org.junit` in `org.junit.Test`), when the language says. */
  | { role: 'type-ref'; qualifier?: string }
  /** A bare identifier in an expression. */
  | { role: 'value'; qualifier?: string }
  /** `obj.name` (or a Java call without a receiver, `implicit`); `object` is the receiver when it is a plain identifier. */
  | { role: 'member'; called: boolean; object?: string; implicit?: boolean; arguments?: number }
  /** A key in an object literal, destructuring pattern or Go composite literal. */
  | { role: 'key'; functionValue: boolean; container: string }
  /** TS/JS `{ name }`: a key and a variable at once; `pattern` when it binds (`const { name } = o`). */
  | { role: 'shorthand'; pattern: boolean; binder: Node; container: string }
  | { role: 'other' };

/** Per-language rules: the role of an identifier leaf, the nodes that open a lexical scope, and the namespace imports of a file. */
export interface LanguageRoles {
  /** Leaf node types that can carry a symbol's name. */
  leafTypes: ReadonlySet<string>;
  scopes: ReadonlySet<string>;
  roleOf(node: Node): SymbolRole;
  /** Members (fields, methods) that are also visible as bare names inside their type (Java fields). */
  lexicalMember?(kind: DeclKind): boolean;
  /** Names this node binds to a whole module or package (`import * as ns`, `import os`, a Go import). */
  namespaceNames?(node: Node): string[];
  /**
   * The module an imported name (an occurrence whose role is `import`) comes from, dotted:
   * `enum` in `from enum import Enum`, `java.util` in `import java.util.List`. Undefined when
   * the language does not say (the import is then taken to name the repository's symbol).
   */
  importModule?(node: Node): string | undefined;
  /** `from pkg import mod`: the local names this import statement binds, each with the dotted path it names (`mod` -> `pkg.mod`). */
  importedPaths?(node: Node): [string, string][];
  /** Comment nodes, and strings that are docstrings. */
  isComment(node: Node): boolean;
}

/** True when `node` is (one of) `parent`'s children under `field`. */
export function inField(node: Node, field: string): boolean {
  const parent = node.parent;
  if (!parent) return false;
  return parent.childrenForFieldName(field).some((c) => c?.id === node.id);
}

/** A stable key for a node within one tree (its start offset and type). */
export function nodeKey(node: Node): string {
  return `${node.type}@${node.startIndex}`;
}

export function ancestor(node: Node, types: ReadonlySet<string>): Node | null {
  for (let n = node.parent; n; n = n.parent) if (types.has(n.type)) return n;
  return null;
}
