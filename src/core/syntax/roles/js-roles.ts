import type { Node } from 'web-tree-sitter';
import { ancestor, inField, nodeKey, type DeclKind, type LanguageRoles, type SymbolRole } from './types.js';

const FUNCTION_VALUE = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
const PARAMETER = new Set(['required_parameter', 'optional_parameter']);
const PATTERN_BINDING = new Set(['pair_pattern', 'array_pattern', 'rest_pattern', 'assignment_pattern']);
const CLASS_BODY = new Set(['class_body']);
const MEMBER_FIELD = new Set(['property_signature', 'public_field_definition', 'field_definition']);
const MEMBER_METHOD = new Set(['method_definition', 'method_signature', 'abstract_method_signature']);

function memberRole(node: Node, parent: Node): SymbolRole {
  const call = parent.parent;
  const called = call?.type === 'call_expression' && call.childForFieldName('function')?.id === parent.id;
  const object = parent.childForFieldName('object');
  return { role: 'member', called, object: object?.type === 'identifier' ? object.text : undefined };
}

function propertyRole(node: Node, parent: Node): SymbolRole {
  const container = parent.parent ? nodeKey(parent.parent) : '';
  if (MEMBER_FIELD.has(parent.type)) return { role: 'declaration', kind: 'field', binder: parent, container };
  if (MEMBER_METHOD.has(parent.type)) return { role: 'declaration', kind: 'method', binder: parent, container };
  if (parent.type === 'member_expression') return inField(node, 'property') ? memberRole(node, parent) : { role: 'other' };
  if (parent.type === 'pair' || parent.type === 'pair_pattern') {
    const value = parent.childForFieldName('value');
    return { role: 'key', functionValue: !!value && FUNCTION_VALUE.has(value.type), container };
  }
  // A JSX attribute sets a prop: a field of the component's props type.
  if (parent.type === 'jsx_attribute') return { role: 'key', functionValue: false, container: parent.parent ? nodeKey(parent.parent) : '' };
  // Enum members are reached as `E.Member`, like fields.
  if (parent.type === 'enum_body') return { role: 'declaration', kind: 'field', binder: parent, container: nodeKey(parent) };
  if (parent.type === 'enum_assignment') return { role: 'declaration', kind: 'field', binder: parent, container };
  return { role: 'other' };
}

type RoleRule = (node: Node, parent: Node) => SymbolRole;

/** A declaration of `kind` bound at `binder` when the identifier is the parent's name, else a value. */
function namedDeclaration(kind: DeclKind, binder: 'parent' | 'node'): RoleRule {
  return (node, parent) => (inField(node, 'name') ? { role: 'declaration', kind, binder: binder === 'parent' ? parent : node } : { role: 'value' });
}

function variableRole(node: Node, parent: Node): SymbolRole {
  if (!inField(node, 'name')) return { role: 'value' };
  const value = parent.childForFieldName('value');
  return { role: 'declaration', kind: value && FUNCTION_VALUE.has(value.type) ? 'function' : 'variable', binder: parent };
}

const bindsNode: RoleRule = (node) => ({ role: 'declaration', kind: 'variable', binder: node });
const importName: RoleRule = () => ({ role: 'import' });
const other: RoleRule = () => ({ role: 'other' });

/** The role of an identifier by its parent's type, for the parents that decide it alone. */
const BY_PARENT = new Map<string, RoleRule>([
  ['function_declaration', namedDeclaration('function', 'parent')],
  ['generator_function_declaration', namedDeclaration('function', 'parent')],
  ['function_signature', namedDeclaration('function', 'parent')],
  ['function_expression', namedDeclaration('function', 'node')],
  ['function', namedDeclaration('function', 'node')],
  ['generator_function', namedDeclaration('function', 'node')],
  ['class_declaration', namedDeclaration('class', 'parent')],
  ['class', namedDeclaration('class', 'parent')],
  ['enum_declaration', namedDeclaration('enum', 'parent')],
  ['variable_declarator', variableRole],
  ['import_specifier', importName],
  ['export_specifier', importName],
  ['import_clause', importName],
  ['namespace_import', importName],
  ['formal_parameters', bindsNode],
  ['catch_clause', bindsNode],
  ['arrow_function', (node) => (inField(node, 'parameter') ? { role: 'declaration', kind: 'variable', binder: node } : { role: 'value' })],
  [
    'for_in_statement',
    (node, parent) => (inField(node, 'left') && parent.childForFieldName('kind') ? { role: 'declaration', kind: 'variable', binder: node } : { role: 'value' }),
  ],
  ['labeled_statement', other],
  ['break_statement', other],
  ['continue_statement', other],
]);

function parameterRole(node: Node, parent: Node): SymbolRole {
  if (!inField(node, 'pattern')) return { role: 'value' };
  // `constructor(private readonly x: T)` declares a field, and a parameter the constructor body uses.
  const property = parent.children.some((c) => c?.type === 'accessibility_modifier' || c?.type === 'readonly' || c?.type === 'override_modifier');
  const body = property ? ancestor(parent, CLASS_BODY) : null;
  if (body) return { role: 'declaration', kind: 'field', binder: node, container: nodeKey(body), lexical: true };
  return { role: 'declaration', kind: 'variable', binder: node };
}

/** Whether an identifier in a destructuring pattern is a name it binds (not a default value or a key). */
function bindsInPattern(node: Node, parent: Node): boolean {
  if (!PATTERN_BINDING.has(parent.type)) return false;
  if (parent.type === 'assignment_pattern') return inField(node, 'left');
  if (parent.type === 'pair_pattern') return inField(node, 'value');
  return true;
}

function identifierRole(node: Node, parent: Node): SymbolRole {
  const rule = BY_PARENT.get(parent.type);
  if (rule) return rule(node, parent);
  if (PARAMETER.has(parent.type)) return parameterRole(node, parent);
  if (bindsInPattern(node, parent)) return { role: 'declaration', kind: 'variable', binder: node };
  return { role: 'value' };
}

function typeIdentifierRole(node: Node, parent: Node): SymbolRole {
  if (!inField(node, 'name')) return { role: 'type-ref' };
  switch (parent.type) {
    case 'class_declaration':
    case 'abstract_class_declaration':
    case 'class':
      return { role: 'declaration', kind: 'class', binder: parent };
    case 'interface_declaration':
      return { role: 'declaration', kind: 'interface', binder: parent };
    case 'type_alias_declaration':
      return { role: 'declaration', kind: 'type', binder: parent };
    case 'type_parameter':
      return { role: 'declaration', kind: 'type', binder: node };
  }
  return { role: 'type-ref' };
}

/** TypeScript, TSX and JavaScript. `#private` names are not identifiers a step can name, so they never match. */
export const JS_ROLES: LanguageRoles = {
  leafTypes: new Set(['identifier', 'type_identifier', 'property_identifier', 'shorthand_property_identifier', 'shorthand_property_identifier_pattern']),
  scopes: new Set([
    'program',
    'statement_block',
    'function_declaration',
    'generator_function_declaration',
    'function_expression',
    'function',
    'generator_function',
    'arrow_function',
    'method_definition',
    'for_statement',
    'for_in_statement',
    'catch_clause',
    'class_declaration',
    'class',
  ]),
  roleOf(node) {
    const parent = node.parent;
    if (!parent) return { role: 'other' };
    switch (node.type) {
      case 'type_identifier':
        return typeIdentifierRole(node, parent);
      case 'property_identifier':
        return propertyRole(node, parent);
      case 'shorthand_property_identifier':
        return { role: 'shorthand', pattern: false, binder: node, container: nodeKey(parent) };
      case 'shorthand_property_identifier_pattern': {
        const holder = parent.type === 'object_assignment_pattern' ? parent.parent : parent;
        return { role: 'shorthand', pattern: true, binder: node, container: holder ? nodeKey(holder) : '' };
      }
      case 'identifier':
        return identifierRole(node, parent);
    }
    return { role: 'other' };
  },
  namespaceNames(node) {
    if (node.type !== 'namespace_import') return [];
    const id = node.namedChildren.find((c) => c?.type === 'identifier');
    return id ? [id.text] : [];
  },
  isComment: (node) => node.type === 'comment',
};
