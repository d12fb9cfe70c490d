import type { Node } from 'web-tree-sitter';
import { ancestor, inField, nodeKey, type DeclKind, type LanguageRoles, type SymbolRole } from './types.js';

const TYPE_DECLARATIONS: Record<string, DeclKind> = {
  class_declaration: 'class',
  record_declaration: 'class',
  interface_declaration: 'interface',
  annotation_type_declaration: 'interface',
  enum_declaration: 'enum',
};
const TYPE_NODES = new Set(Object.keys(TYPE_DECLARATIONS));
const LOCAL_BINDERS = new Set(['catch_formal_parameter', 'spread_parameter', 'enhanced_for_statement', 'resource', 'inferred_parameters', 'lambda_expression']);

function containerOf(node: Node): string {
  const type = ancestor(node, TYPE_NODES);
  return type ? nodeKey(type) : '';
}

type RoleRule = (node: Node, parent: Node) => SymbolRole;

function fieldRole(node: Node, parent: Node): SymbolRole {
  return inField(node, 'name') ? { role: 'declaration', kind: 'field', binder: parent, container: containerOf(parent) } : { role: 'value' };
}

function methodRole(node: Node, parent: Node): SymbolRole {
  return inField(node, 'name') ? { role: 'declaration', kind: 'method', binder: parent, container: containerOf(parent) } : { role: 'value' };
}

/** A constructor is named for its class. */
function constructorRole(node: Node): SymbolRole {
  return inField(node, 'name') ? { role: 'type-ref' } : { role: 'value' };
}

function variableRole(node: Node, parent: Node): SymbolRole {
  if (!inField(node, 'name')) return { role: 'value' };
  const holder = parent.parent?.type;
  if (holder === 'field_declaration' || holder === 'constant_declaration') {
    return { role: 'declaration', kind: 'field', binder: parent.parent!, container: containerOf(parent) };
  }
  return { role: 'declaration', kind: 'variable', binder: parent };
}

function parameterRole(node: Node, parent: Node): SymbolRole {
  if (!inField(node, 'name')) return { role: 'value' };
  // Record components are the record's fields (and name its accessors).
  const owner = parent.parent?.parent;
  if (owner?.type === 'record_declaration') return { role: 'declaration', kind: 'field', binder: parent, container: nodeKey(owner) };
  return { role: 'declaration', kind: 'variable', binder: node };
}

function invocationRole(node: Node, parent: Node): SymbolRole {
  if (!inField(node, 'name')) return { role: 'value' };
  const object = parent.childForFieldName('object');
  const count = parent.childForFieldName('arguments')?.namedChildCount ?? 0;
  return object
    ? { role: 'member', called: true, object: objectName(parent), arguments: count }
    : { role: 'member', called: true, implicit: true, arguments: count };
}

const typeRef: RoleRule = () => ({ role: 'type-ref' });
const other: RoleRule = () => ({ role: 'other' });

/** The role of an identifier by its parent's type, for the parents that decide it alone. */
const BY_PARENT = new Map<string, RoleRule>([
  ['method_declaration', methodRole],
  ['constructor_declaration', constructorRole],
  ['compact_constructor_declaration', constructorRole],
  ['variable_declarator', variableRole],
  ['formal_parameter', parameterRole],
  ['enum_constant', fieldRole],
  ['field_access', (node, parent) => (inField(node, 'field') ? { role: 'member', called: false, object: objectName(parent) } : { role: 'value' })],
  ['method_invocation', invocationRole],
  ['method_reference', (node) => (node.previousSibling?.type === '::' ? { role: 'member', called: true } : { role: 'value' })],
  ['marker_annotation', typeRef],
  ['annotation', typeRef],
  ['scoped_identifier', scopedRole],
  ['labeled_statement', other],
  ['break_statement', other],
  ['continue_statement', other],
]);

/** Whether an identifier under a local binder (a lambda, a catch, a resource...) is the name it binds. */
function bindsLocally(node: Node, parent: Node): boolean {
  if (parent.type === 'inferred_parameters') return true;
  return parent.type === 'lambda_expression' ? inField(node, 'parameters') : inField(node, 'name');
}

function identifierRole(node: Node, parent: Node): SymbolRole {
  const kind = TYPE_DECLARATIONS[parent.type];
  if (kind) return inField(node, 'name') ? { role: 'declaration', kind, binder: parent } : { role: 'value' };
  const rule = BY_PARENT.get(parent.type);
  if (rule) return rule(node, parent);
  if (LOCAL_BINDERS.has(parent.type) && bindsLocally(node, parent)) return { role: 'declaration', kind: 'variable', binder: node };
  if (parent.type === 'import_declaration') return { role: 'import' };
  return { role: 'value' };
}

function objectName(parent: Node): string | undefined {
  const object = parent.childForFieldName('object');
  return object?.type === 'identifier' ? object.text : undefined;
}

/** In an import, only the last segment names a symbol (a class, or a static member); elsewhere a qualified name's last segment is a reference. */
function scopedRole(node: Node, parent: Node): SymbolRole {
  let top = parent;
  while (top.parent?.type === 'scoped_identifier') top = top.parent;
  const inImport = top.parent?.type === 'import_declaration';
  if (!inField(node, 'name')) return inImport ? { role: 'other' } : { role: 'value' };
  if (top.id !== parent.id) return inImport ? { role: 'other' } : { role: 'value' };
  // A fully qualified name (`@org.junit.jupiter.api.Test`) names the symbol of that package.
  const scope = parent.childForFieldName('scope')?.text.replace(/\s+/g, '');
  return inImport ? { role: 'import' } : { role: 'value', ...(scope ? { qualifier: scope } : {}) };
}

export const JAVA_ROLES: LanguageRoles = {
  leafTypes: new Set(['identifier', 'type_identifier']),
  scopes: new Set([
    'program',
    'class_body',
    'interface_body',
    'enum_body',
    'record_declaration',
    'method_declaration',
    'constructor_declaration',
    'compact_constructor_declaration',
    'block',
    'lambda_expression',
    'for_statement',
    'enhanced_for_statement',
    'catch_clause',
    'try_with_resources_statement',
  ]),
  roleOf(node) {
    const parent = node.parent;
    if (!parent) return { role: 'other' };
    if (node.type === 'type_identifier') {
      // `org.acme.Order` as a type: the last segment is the type, the rest its package.
      const qualified = parent.type === 'scoped_type_identifier' && parent.lastNamedChild?.id === node.id;
      const scope = qualified ? parent.text.slice(0, node.startIndex - parent.startIndex).replace(/[\s.]+$/, '') : undefined;
      return scope && !/[<>]/.test(scope) ? { role: 'type-ref', qualifier: scope.replace(/\s+/g, '') } : { role: 'type-ref' };
    }
    return identifierRole(node, parent);
  },
  // A field is in scope, as a bare name, throughout its class body.
  lexicalMember: (kind) => kind === 'field',
  importModule(node) {
    let top = node.parent;
    while (top?.parent?.type === 'scoped_identifier') top = top.parent;
    return top?.type === 'scoped_identifier' ? top.childForFieldName('scope')?.text.replace(/\s+/g, '') : undefined;
  },
  isComment: (node) => node.type === 'line_comment' || node.type === 'block_comment',
};
