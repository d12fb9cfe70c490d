import type { Node } from 'web-tree-sitter';
import { ancestor, nodeKey, type DeclKind, type LanguageRoles, type SymbolRole } from './types.js';

/**
 * Kotlin's roles. The grammar names no fields: a declaration's name is its direct
 * `type_identifier` or `simple_identifier` child, a member access is a `navigation_suffix`.
 */
const TYPE_NODES = new Set(['class_declaration', 'object_declaration']);
const LOCAL_HOLDERS = new Set(['function_body', 'lambda_literal', 'statements', 'control_structure_body', 'anonymous_initializer']);

function typeKind(declaration: Node): DeclKind {
  if (declaration.type === 'object_declaration') return 'class';
  if (declaration.children.some((c) => c?.type === 'interface')) return 'interface';
  if (declaration.namedChildren.some((c) => c?.type === 'enum_class_body')) return 'enum';
  return 'class';
}

function isActual(declaration: Node): boolean {
  return declaration.namedChildren.some((c) => c?.type === 'modifiers' && /\bactual\b/.test(c.text));
}

function containerOf(node: Node): string {
  const type = ancestor(node, TYPE_NODES);
  return type ? nodeKey(type) : '';
}

/** Whether a declaration sits directly in a type's body (a member), not in a function or a block. */
function isMember(declaration: Node): boolean {
  const body = declaration.parent;
  return body?.type === 'class_body' || body?.type === 'enum_class_body';
}

function typeIdentifierRole(node: Node, parent: Node): SymbolRole {
  if (TYPE_NODES.has(parent.type)) return { role: 'declaration', kind: typeKind(parent), binder: parent };
  // `actual typealias X = Y` is the actual of an `expect class X`: renamed with the class.
  if (parent.type === 'type_alias' && parent.namedChildren.find((c) => c?.type === 'type_identifier')?.id === node.id)
    return { role: 'declaration', kind: isActual(parent) ? 'class' : 'type', binder: parent };
  if (parent.type === 'type_parameter') return { role: 'declaration', kind: 'type', binder: node };
  // An import alias (`import a.B as C`) binds a name of its own.
  if (parent.type === 'import_alias') return { role: 'import' };
  return { role: 'type-ref' };
}

function functionRole(parent: Node): SymbolRole {
  return isMember(parent)
    ? { role: 'declaration', kind: 'method', binder: parent, container: containerOf(parent) }
    : { role: 'declaration', kind: 'function', binder: parent };
}

function propertyRole(node: Node, declaration: Node): SymbolRole {
  const property = declaration.parent;
  if (property?.type === 'property_declaration' && isMember(property))
    return { role: 'declaration', kind: 'field', binder: property, container: containerOf(property) };
  if (property?.type === 'property_declaration' && property.parent?.type === 'source_file') return { role: 'declaration', kind: 'variable', binder: property };
  return { role: 'declaration', kind: 'variable', binder: node };
}

function navigationRole(suffix: Node): SymbolRole {
  const access = suffix.parent;
  const receiver = access?.namedChildren[0];
  const call = access?.parent;
  const called = call?.type === 'call_expression' && call.namedChildren[0]?.id === access?.id;
  const args = called
    ? (call!.namedChildren.find((c) => c?.type === 'call_suffix')?.namedChildren.find((c) => c?.type === 'value_arguments')?.namedChildCount ?? 0)
    : undefined;
  return {
    role: 'member',
    called,
    object: receiver?.type === 'simple_identifier' ? receiver.text : undefined,
    ...(args !== undefined ? { arguments: args } : {}),
  };
}

type RoleRule = (node: Node, parent: Node) => SymbolRole;

const variable: RoleRule = (node) => ({ role: 'declaration', kind: 'variable', binder: node });
const other: RoleRule = () => ({ role: 'other' });

/** The role of a `simple_identifier` by its parent's type, for the parents that decide it. */
const BY_PARENT = new Map<string, RoleRule>([
  ['function_declaration', (_node, parent) => functionRole(parent)],
  ['variable_declaration', propertyRole],
  // `val`/`var` constructor parameters are properties of the class.
  [
    'class_parameter',
    (node, parent) =>
      parent.namedChildren.some((c) => c?.type === 'binding_pattern_kind')
        ? { role: 'declaration', kind: 'field', binder: parent, container: containerOf(parent) }
        : variable(node, parent),
  ],
  ['parameter', variable],
  ['lambda_parameters', variable],
  ['enum_entry', (_node, parent) => ({ role: 'declaration', kind: 'field', binder: parent, container: containerOf(parent) })],
  ['navigation_suffix', (_node, parent) => navigationRole(parent)],
  // A named argument's name (`f(total = 1)`) is the parameter's, not a value.
  ['value_argument', (node, parent) => (parent.children[1]?.type === '=' && parent.namedChildren[0]?.id === node.id ? { role: 'other' } : { role: 'value' })],
  ['identifier', qualifiedRole],
  ['label', other],
  ['jump_expression', other],
]);

/** A segment of a dotted name: in an import only the last names a symbol; a package clause names none. */
function qualifiedRole(node: Node, parent: Node): SymbolRole {
  const holder = parent.parent?.type;
  if (holder === 'package_header') return { role: 'other' };
  if (holder === 'import_header') return parent.namedChildren[parent.namedChildCount - 1]?.id === node.id ? { role: 'import' } : { role: 'other' };
  return { role: 'value' };
}

function simpleIdentifierRole(node: Node, parent: Node): SymbolRole {
  return BY_PARENT.get(parent.type)?.(node, parent) ?? { role: 'value' };
}

export const KOTLIN_ROLES: LanguageRoles = {
  leafTypes: new Set(['simple_identifier', 'type_identifier']),
  scopes: new Set([
    'source_file',
    'class_body',
    'enum_class_body',
    'class_declaration',
    'object_declaration',
    'function_declaration',
    ...LOCAL_HOLDERS,
    'for_statement',
    'catch_block',
  ]),
  roleOf(node) {
    const parent = node.parent;
    if (!parent) return { role: 'other' };
    return node.type === 'type_identifier' ? typeIdentifierRole(node, parent) : simpleIdentifierRole(node, parent);
  },
  // A property is in scope, as a bare name, throughout its class body (as a Java field is).
  lexicalMember: (kind) => kind === 'field' || kind === 'method',
  importModule(node) {
    const path = node.parent?.type === 'identifier' ? node.parent : undefined;
    if (path?.parent?.type !== 'import_header') return undefined;
    const segments = path.namedChildren.map((c) => c?.text ?? '');
    return segments.length > 1 ? segments.slice(0, -1).join('.') : undefined;
  },
  isComment: (node) => node.type === 'comment' || node.type === 'line_comment' || node.type === 'multiline_comment',
};
