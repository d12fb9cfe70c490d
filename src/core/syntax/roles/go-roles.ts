import type { Node } from 'web-tree-sitter';
import { goPackageName } from '../go-package-name.js';
import { ancestor, inField, type LanguageRoles, type SymbolRole } from './types.js';

const TYPE_SPEC = new Set(['type_spec']);

/** Go members belong to a named type: the struct or interface around them, or a method's receiver type. */
function typeContainer(node: Node): string {
  const spec = ancestor(node, TYPE_SPEC);
  return `type:${spec?.childForFieldName('name')?.text ?? ''}`;
}

function receiverContainer(method: Node): string {
  const type = method.childForFieldName('receiver')?.namedChildren[0]?.childForFieldName('type');
  const id = type?.type === 'type_identifier' ? type : type?.descendantsOfType('type_identifier')[0];
  return `type:${id?.text ?? ''}`;
}

function fieldIdentifierRole(node: Node, parent: Node): SymbolRole {
  switch (parent.type) {
    case 'field_declaration':
      return { role: 'declaration', kind: 'field', binder: parent, container: typeContainer(parent) };
    case 'method_spec':
    case 'method_elem':
      return { role: 'declaration', kind: 'method', binder: parent, container: typeContainer(parent) };
    case 'method_declaration':
      return { role: 'declaration', kind: 'method', binder: parent, container: receiverContainer(parent) };
    case 'selector_expression': {
      const call = parent.parent;
      const called = call?.type === 'call_expression' && call.childForFieldName('function')?.id === parent.id;
      const operand = parent.childForFieldName('operand');
      return { role: 'member', called, object: operand?.type === 'identifier' ? operand.text : undefined };
    }
  }
  return { role: 'other' };
}

/** `T{Name: v}`: the key of a keyed element names a struct field (a map literal's key is a value). */
function literalElementRole(parent: Node): SymbolRole {
  const keyed = parent.parent;
  const literal = keyed?.parent?.parent;
  if (keyed?.type !== 'keyed_element' || keyed.namedChildren[0]?.id !== parent.id || literal?.type !== 'composite_literal') return { role: 'value' };
  const type = literal.childForFieldName('type');
  if (type && type.type !== 'map_type') return { role: 'key', functionValue: false, container: typeContainerOfLiteral(type) };
  return { role: 'value' };
}

/** The left side of `:=` (or of a `range` clause with `:=`) declares variables. */
function expressionListRole(node: Node, parent: Node): SymbolRole {
  const holder = parent.parent;
  const declares =
    (holder?.type === 'short_var_declaration' || (holder?.type === 'range_clause' && holder.children.some((c) => c?.type === ':='))) && inField(parent, 'left');
  return declares ? { role: 'declaration', kind: 'variable', binder: node } : { role: 'value' };
}

function identifierRole(node: Node, parent: Node): SymbolRole {
  switch (parent.type) {
    case 'function_declaration':
      return inField(node, 'name') ? { role: 'declaration', kind: 'function', binder: parent } : { role: 'value' };
    case 'const_spec':
    case 'var_spec':
    case 'parameter_declaration':
    case 'variadic_parameter_declaration':
      return inField(node, 'name') ? { role: 'declaration', kind: 'variable', binder: node } : { role: 'value' };
    case 'label_name':
    case 'labeled_statement':
      return { role: 'other' };
    case 'literal_element':
      return literalElementRole(parent);
    case 'expression_list':
      return expressionListRole(node, parent);
  }
  return { role: 'value' };
}

function typeContainerOfLiteral(type: Node): string {
  const id = type.type === 'type_identifier' ? type : type.descendantsOfType('type_identifier').at(-1);
  return `type:${id?.text ?? ''}`;
}

export const GO_ROLES: LanguageRoles = {
  leafTypes: new Set(['identifier', 'type_identifier', 'field_identifier']),
  scopes: new Set([
    'source_file',
    'function_declaration',
    'method_declaration',
    'func_literal',
    'block',
    'for_statement',
    'if_statement',
    'expression_switch_statement',
    'type_switch_statement',
    'select_statement',
  ]),
  roleOf(node) {
    const parent = node.parent;
    if (!parent) return { role: 'other' };
    if (node.type === 'field_identifier') return fieldIdentifierRole(node, parent);
    if (node.type === 'type_identifier') {
      if (parent.type === 'type_spec' && inField(node, 'name')) {
        return { role: 'declaration', kind: parent.childForFieldName('type')?.type === 'interface_type' ? 'interface' : 'type', binder: parent };
      }
      if (parent.type === 'type_parameter_declaration') return { role: 'declaration', kind: 'type', binder: node };
      return { role: 'type-ref' };
    }
    return identifierRole(node, parent);
  },
  namespaceNames(node) {
    if (node.type !== 'import_spec') return [];
    const alias = node.childForFieldName('name');
    if (alias) return alias.type === 'package_identifier' ? [alias.text] : [];
    const path = node.childForFieldName('path')?.text.replace(/^["`]|["`]$/g, '') ?? '';
    const name = path ? goPackageName(path) : '';
    return name ? [name] : [];
  },
  isComment: (node) => node.type === 'comment',
};
