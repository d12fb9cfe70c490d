import type { Node, Tree, TreeCursor } from 'web-tree-sitter';
import { LineIndex } from '../../syntax/line-index.js';
import { walkTree } from '../../syntax/walk-tree.js';
import { SYMBOL_ROLES, type DeclKind, type LanguageRoles } from '../../syntax/roles/symbol-roles.js';
import type { SyntaxLanguage } from '../../syntax/types.js';

/** One occurrence of a name, with its role reduced to plain data (nodes do not outlive the tree). */
export interface RenameSite {
  start: number;
  end: number;
  line: number;
  role: SiteRole;
  /** Keys of the lexical scopes around the occurrence, innermost first (the ones its bare name can resolve in). */
  chain: string[];
}

export type SiteRole =
  | { role: 'declaration'; kind: DeclKind; lexical: boolean; bindScope: string; container?: string }
  | { role: 'import'; bindScope: string; module?: string }
  | { role: 'type-ref'; qualifier?: string }
  | { role: 'value'; qualifier?: string }
  | { role: 'member'; called: boolean; object?: string; implicit?: boolean; arguments?: number }
  | { role: 'key'; functionValue: boolean; container: string }
  | { role: 'shorthand'; pattern: boolean; bindScope: string; container: string }
  | { role: 'other' };

export interface FileScan {
  language: SyntaxLanguage;
  from: RenameSite[];
  to: RenameSite[];
  /** Names bound to whole modules or packages in this file (`ns` in `ns.load()`). */
  namespaces: Set<string>;
  /** `from pkg import mod`: local name -> the dotted path it names (`pkg.mod`), a module or a symbol. */
  importedPaths: Map<string, string>;
  /** The file's `package` clause (Java, Kotlin), which names its module whatever its directories. */
  packageName?: string;
  /** Word-bounded mentions of the old name inside comments and docstrings. */
  mentions: { start: number; end: number }[];
}

const COMMENT_TYPES = new Set(['comment', 'line_comment', 'block_comment', 'string']);
const NAMESPACE_TYPES = new Set(['namespace_import', 'import_statement', 'import_spec']);
const FROM_IMPORT_TYPES = new Set(['import_from_statement']);

function escape(text: string): string {
  return text.replace(/[$]/g, '\\$');
}

/** The open lexical scopes at the cursor, outermost first, with the depth of their node. */
type ScopeStack = { depth: number; key: string }[];

/** The scope holding a binding made by `binder`, an ancestor (or self) of the occurrence at `depth`: the innermost scope strictly above it. */
function bindScopeOf(binder: Node, node: Node, depth: number, stack: ScopeStack): string {
  let binderDepth = depth;
  for (let n: Node | null = node; n && n.id !== binder.id; n = n.parent) binderDepth--;
  for (let i = stack.length - 1; i >= 0; i--) if (stack[i].depth < binderDepth) return stack[i].key;
  return stack[0]?.key ?? '';
}

function siteOf(node: Node, depth: number, stack: ScopeStack, roles: LanguageRoles, lines: LineIndex): RenameSite {
  const role = roles.roleOf(node);
  // The node's own scope (a function's name inside the function node) is excluded by depth.
  const chain = stack
    .filter((s) => s.depth < depth)
    .map((s) => s.key)
    .reverse();
  const base = { start: node.startIndex, end: node.endIndex, line: lines.lineOf(node.startIndex) + 1, chain };
  switch (role.role) {
    case 'declaration': {
      const member = role.kind === 'field' || role.kind === 'method';
      const lexical = role.lexical ?? (!member || (roles.lexicalMember?.(role.kind) ?? false));
      return {
        ...base,
        role: { role: 'declaration', kind: role.kind, lexical, bindScope: bindScopeOf(role.binder, node, depth, stack), container: role.container },
      };
    }
    case 'import': {
      const module = roles.importModule?.(node);
      return { ...base, role: { role: 'import', bindScope: stack[0]?.key ?? '', ...(module ? { module } : {}) } };
    }
    case 'shorthand':
      return {
        ...base,
        role: { role: 'shorthand', pattern: role.pattern, bindScope: bindScopeOf(role.binder, node, depth, stack), container: role.container },
      };
    default:
      return { ...base, role };
  }
}

/** `__all__ = [...]`, `__all__ += (...)`: the assignment whose list or tuple holds `node`, a plain string. */
function inExportList(node: Node): boolean {
  const list = node.parent;
  const assignment = list?.parent;
  if (!list || (list.type !== 'list' && list.type !== 'tuple') || !assignment) return false;
  if (assignment.type !== 'assignment' && assignment.type !== 'augmented_assignment') return false;
  return assignment.childForFieldName('left')?.text === '__all__';
}

/** Generic types whose string arguments are forward references (`Optional["Client"]`); `Literal` holds values and is not one. */
const GENERIC_TYPES = new Set([
  'Union',
  'Optional',
  'List',
  'Dict',
  'Set',
  'FrozenSet',
  'Tuple',
  'Type',
  'Callable',
  'Sequence',
  'Mapping',
  'MutableMapping',
  'MutableSequence',
  'Iterable',
  'Iterator',
  'AsyncIterator',
  'AsyncIterable',
  'Awaitable',
  'Coroutine',
  'Generator',
  'AsyncGenerator',
  'ClassVar',
  'Final',
  'Annotated',
  'TypeGuard',
  'list',
  'dict',
  'set',
  'frozenset',
  'tuple',
  'type',
]);
/** Ancestors looked through for an annotation (a string nested in a few generic types). */
const MAX_TYPE_DEPTH = 8;

/** Whether a string sits in a type annotation (`x: "Client"`, `-> "Client"`) or among a generic type's arguments (`Union[str, "Client"]`). */
function inTypeAnnotation(node: Node): boolean {
  let n: Node | null = node.parent;
  for (let i = 0; n && i < MAX_TYPE_DEPTH; i++, n = n.parent) {
    if (n.type === 'type') return true;
    if (n.type === 'subscript') {
      const generic = n.childForFieldName('value');
      const name = generic?.type === 'attribute' ? generic.childForFieldName('attribute')?.text : generic?.text;
      return name !== undefined && GENERIC_TYPES.has(name);
    }
    if (n.type !== 'list' && n.type !== 'tuple' && n.type !== 'binary_operator' && n.type !== 'generic_type' && n.type !== 'type_parameter') return false;
  }
  return false;
}

/**
 * A Python string that holds exactly `name` and uses the binding: an entry of the module's
 * `__all__` (a value, as `from m import *` reads it) or a forward reference in an annotation (a
 * type, as type checkers read it). Undefined for any other string.
 */
function pythonNameString(node: Node, source: string, name: string): SiteRole | undefined {
  const quote = source[node.startIndex];
  if (node.endIndex - node.startIndex !== name.length + 2 || (quote !== '"' && quote !== "'") || source[node.endIndex - 1] !== quote) return undefined;
  if (source.slice(node.startIndex + 1, node.endIndex - 1) !== name) return undefined;
  if (inExportList(node)) return { role: 'value' };
  return inTypeAnnotation(node) ? { role: 'type-ref' } : undefined;
}

/** A Python string naming the binding (`pythonNameString`) as a site: an __all__ entry resolves at module level, a forward reference where it is written. */
function pythonStringSite(cursor: TreeCursor, depth: number, stack: ScopeStack, source: string, name: string, lines: LineIndex): RenameSite | undefined {
  if (cursor.nodeType !== 'string' || cursor.endIndex - cursor.startIndex !== name.length + 2) return undefined;
  const node = cursor.currentNode;
  const role = pythonNameString(node, source, name);
  if (!role) return undefined;
  const start = node.startIndex + 1;
  const chain =
    role.role === 'value'
      ? stack.slice(0, 1).map((s) => s.key)
      : stack
          .filter((s) => s.depth < depth)
          .map((s) => s.key)
          .reverse();
  return { start, end: start + name.length, line: lines.lineOf(start) + 1, chain, role };
}

/**
 * Every occurrence of `from` and `to` as a symbol name in one parsed file, with its syntactic
 * role and scopes; with `comments`, also the mentions of `from` in comments and docstrings.
 */
export function scanRenameSites(language: SyntaxLanguage, tree: Tree, source: string, names: { from: string; to: string }, comments: boolean): FileScan {
  const roles = SYMBOL_ROLES[language];
  const lines = new LineIndex(source);
  const scan: FileScan = { language, from: [], to: [], namespaces: new Set(), importedPaths: new Map(), mentions: [] };
  const clause = language === 'java' || language === 'kotlin' ? /^\s*package\s+([\w.]+)/m.exec(source.slice(0, 64 * 1024)) : null;
  if (clause) scan.packageName = clause[1];
  const word = new RegExp(`(?<![A-Za-z0-9_$])${escape(names.from)}(?![A-Za-z0-9_$])`, 'g');
  const stack: ScopeStack = [];
  walkTree(tree, stack, (cursor, depth) => {
    const type = cursor.nodeType;
    const length = cursor.endIndex - cursor.startIndex;
    let descend = true;
    const pyString = language === 'python' ? pythonStringSite(cursor, depth, stack, source, names.from, lines) : undefined;
    if (roles.leafTypes.has(type) && (length === names.from.length || length === names.to.length)) {
      const text = source.slice(cursor.startIndex, cursor.endIndex);
      if (text === names.from) scan.from.push(siteOf(cursor.currentNode, depth, stack, roles, lines));
      else if (text === names.to) scan.to.push(siteOf(cursor.currentNode, depth, stack, roles, lines));
    } else if (NAMESPACE_TYPES.has(type) && roles.namespaceNames) {
      for (const name of roles.namespaceNames(cursor.currentNode)) scan.namespaces.add(name);
    } else if (FROM_IMPORT_TYPES.has(type) && roles.importedPaths) {
      for (const [local, path] of roles.importedPaths(cursor.currentNode)) scan.importedPaths.set(local, path);
    } else if (pyString) {
      scan.from.push(pyString);
    } else if (COMMENT_TYPES.has(type) && comments) {
      const node = cursor.currentNode;
      if (roles.isComment(node)) {
        descend = false;
        for (const match of node.text.matchAll(word))
          scan.mentions.push({ start: node.startIndex + match.index, end: node.startIndex + match.index + names.from.length });
      }
    }
    if (roles.scopes.has(type)) stack.push({ depth, key: `${type}@${cursor.startIndex}` });
    return descend;
  });
  return scan;
}
