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

function identifierRole(node: Node, parent: Node): SymbolRole {
  const isName = inField(node, 'name');
  const kind = TYPE_DECLARATIONS[parent.type];
  if (kind) return isName ? { role: 'declaration', kind, binder: parent } : { role: 'value' };
  switch (parent.type) {
    case 'method_declaration':
      return isName ? { role: 'declaration', kind: 'method', binder: parent, container: containerOf(parent) } : { role: 'value' };
    case 'constructor_declaration':
    case 'compact_constructor_declaration':
      // A constructor is named for its class.
      return isName ? { role: 'type-ref' } : { role: 'value' };
    case 'variable_declarator': {
      if (!isName) return { role: 'value' };
      const holder = parent.parent?.type;
      if (holder === 'field_declaration' || holder === 'constant_declaration') {
        return { role: 'declaration', kind: 'field', binder: parent.parent!, container: containerOf(parent) };
      }
      return { role: 'declaration', kind: 'variable', binder: parent };
    }
    case 'formal_parameter': {
      if (!isName) return { role: 'value' };
      // Record components are the record's fields (and name its accessors).
      const owner = parent.parent?.parent;
      if (owner?.type === 'record_declaration') return { role: 'declaration', kind: 'field', binder: parent, container: nodeKey(owner) };
      return { role: 'declaration', kind: 'variable', binder: node };
    }
    case 'enum_constant':
      return isName ? { role: 'declaration', kind: 'field', binder: parent, container: containerOf(parent) } : { role: 'value' };
    case 'field_access':
      return inField(node, 'field') ? { role: 'member', called: false, object: objectName(parent) } : { role: 'value' };
    case 'method_invocation': {
      if (!isName) return { role: 'value' };
      const object = parent.childForFieldName('object');
      const count = parent.childForFieldName('arguments')?.namedChildCount ?? 0;
      return object ? { role: 'member', called: true, object: objectName(parent), arguments: count } : { role: 'member', called: true, implicit: true, arguments: count };
    }
    case 'method_reference':
      return node.previousSibling?.type === '::' ? { role: 'member', called: true } : { role: 'value' };
    case 'marker_annotation':
    case 'annotation':
      return { role: 'type-ref' };
    case 'scoped_identifier':
      return scopedRole(node, parent);
    case 'labeled_statement':
    case 'break_statement':
    case 'continue_statement':
      return { role: 'other' };
  }
  if (LOCAL_BINDERS.has(parent.type)) {
    const binds = parent.type === 'inferred_parameters' || (parent.type === 'lambda_expression' ? inField(node, 'parameters') : isName);
    if (binds) return { role: 'declaration', kind: 'variable', binder: node };
  }
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
  return inImport ? { role: 'import' } : { role: 'value' };
}

export const JAVA_ROLES: LanguageRoles = {
  leafTypes: new Set(['identifier', 'type_identifier']),
  scopes: new Set([
    'program', 'class_body', 'interface_body', 'enum_body', 'record_declaration', 'method_declaration', 'constructor_declaration',
    'compact_constructor_declaration', 'block', 'lambda_expression', 'for_statement', 'enhanced_for_statement', 'catch_clause', 'try_with_resources_statement',
  ]),
  roleOf(node) {
    const parent = node.parent;
    if (!parent) return { role: 'other' };
    if (node.type === 'type_identifier') return { role: 'type-ref' };
    return identifierRole(node, parent);
  },
  // A field is in scope, as a bare name, throughout its class body.
  lexicalMember: (kind) => kind === 'field',
  isComment: (node) => node.type === 'line_comment' || node.type === 'block_comment',
};
