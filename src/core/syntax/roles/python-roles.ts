import type { Node } from 'web-tree-sitter';
import { ancestor, inField, nodeKey, type LanguageRoles, type SymbolRole } from './types.js';

const CLASS = new Set(['class_definition']);
const FUNCTION_OR_CLASS = new Set(['function_definition', 'class_definition']);
const PARAMETER = new Set([
  'parameters',
  'lambda_parameters',
  'default_parameter',
  'typed_parameter',
  'typed_default_parameter',
  'list_splat_pattern',
  'dictionary_splat_pattern',
]);
const TARGET_LISTS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern', 'expression_list', 'tuple', 'list']);

/** The statement a (possibly destructured) target belongs to, and the field it sits in. */
function targetHolder(node: Node): { holder: Node; field: boolean } | undefined {
  let n = node;
  while (n.parent && TARGET_LISTS.has(n.parent.type)) n = n.parent;
  const holder = n.parent;
  if (!holder) return undefined;
  return { holder, field: inField(n, 'left') };
}

function isClassBodyStatement(statement: Node): boolean {
  return (
    statement.parent?.type === 'expression_statement' &&
    statement.parent.parent?.type === 'block' &&
    statement.parent.parent.parent?.type === 'class_definition'
  );
}

type RoleRule = (node: Node, parent: Node) => SymbolRole;

function functionRole(node: Node, parent: Node): SymbolRole {
  if (!inField(node, 'name')) return { role: 'value' };
  const owner = ancestor(parent, FUNCTION_OR_CLASS);
  if (owner?.type === 'class_definition') return { role: 'declaration', kind: 'method', binder: parent, container: nodeKey(owner) };
  return { role: 'declaration', kind: 'function', binder: parent };
}

function attributeRole(node: Node, parent: Node): SymbolRole {
  if (!inField(node, 'attribute')) return { role: 'value' };
  const object = parent.childForFieldName('object');
  const objectName = object?.type === 'identifier' ? object.text : undefined;
  const target = targetHolder(parent);
  // `self.x = ...` in a method declares the attribute on the class.
  if ((objectName === 'self' || objectName === 'cls') && target?.field && target.holder.type === 'assignment') {
    const owner = ancestor(parent, CLASS);
    if (owner) return { role: 'declaration', kind: 'field', binder: parent, container: nodeKey(owner) };
  }
  const call = parent.parent;
  const called = call?.type === 'call' && call.childForFieldName('function')?.id === parent.id;
  return { role: 'member', called, object: objectName };
}

const bindsNode: RoleRule = (node) => ({ role: 'declaration', kind: 'variable', binder: node });
const value: RoleRule = () => ({ role: 'value' });

/** The role of an identifier by its parent's type, for the parents that decide it alone. */
const BY_PARENT = new Map<string, RoleRule>([
  ['class_definition', (node, parent) => (inField(node, 'name') ? { role: 'declaration', kind: 'class', binder: parent } : { role: 'value' })],
  ['function_definition', functionRole],
  ['attribute', attributeRole],
  ['keyword_argument', (node) => (inField(node, 'name') ? { role: 'other' } : { role: 'value' })],
  ['as_pattern_target', bindsNode],
  ['named_expression', (node) => (inField(node, 'name') ? { role: 'declaration', kind: 'variable', binder: node } : { role: 'value' })],
  ['dotted_name', importRole],
  ['aliased_import', importRole],
  ['global_statement', value],
  ['nonlocal_statement', value],
]);

function parameterRole(node: Node, parent: Node): SymbolRole {
  if (parent.type.startsWith('default') || parent.type === 'typed_default_parameter')
    return inField(node, 'name') ? { role: 'declaration', kind: 'variable', binder: node } : { role: 'value' };
  if (parent.type === 'typed_parameter')
    return parent.namedChildren[0]?.id === node.id ? { role: 'declaration', kind: 'variable', binder: node } : { role: 'value' };
  return { role: 'declaration', kind: 'variable', binder: node };
}

/** A name assigned to or looped over: a variable, or a class attribute when assigned directly in a class body. */
function targetRole(node: Node): SymbolRole {
  const target = targetHolder(node);
  if (!target?.field) return { role: 'value' };
  switch (target.holder.type) {
    case 'assignment':
      if (isClassBodyStatement(target.holder))
        return { role: 'declaration', kind: 'field', binder: node, container: nodeKey(target.holder.parent!.parent!.parent!) };
      return { role: 'declaration', kind: 'variable', binder: node };
    case 'for_statement':
    case 'for_in_clause':
      return { role: 'declaration', kind: 'variable', binder: node };
  }
  return { role: 'value' };
}

function identifierRole(node: Node, parent: Node): SymbolRole {
  const rule = BY_PARENT.get(parent.type);
  if (rule) return rule(node, parent);
  if (PARAMETER.has(parent.type)) return parameterRole(node, parent);
  if (ancestor(node, new Set(['type']))) return { role: 'type-ref' };
  return targetRole(node);
}

function importRole(node: Node, parent: Node): SymbolRole {
  const statement = ancestor(node, new Set(['import_statement', 'import_from_statement']));
  if (!statement) return { role: 'value' };
  if (parent.type === 'aliased_import') return inField(node, 'alias') ? { role: 'import' } : { role: 'other' };
  // `from m import x`: x names a symbol; module paths never do.
  if (statement.type === 'import_from_statement' && !inField(parent, 'module_name') && parent.namedChildren.length === 1) return { role: 'import' };
  return { role: 'other' };
}

/** A string that is the first statement of a module, class or function body. */
function isDocstring(node: Node): boolean {
  if (node.type !== 'string') return false;
  const statement = node.parent;
  if (statement?.type !== 'expression_statement' || statement.namedChildCount !== 1) return false;
  const body = statement.parent;
  if (!body) return false;
  if (body.type === 'module') return body.namedChildren.find((c) => c?.type !== 'comment')?.id === statement.id;
  return body.type === 'block' && FUNCTION_OR_CLASS.has(body.parent?.type ?? '') && body.namedChildren[0]?.id === statement.id;
}

/** Class attributes and methods are members (not `lexicalMember`): a method reaches them through `self`, never as bare names. */
export const PYTHON_ROLES: LanguageRoles = {
  leafTypes: new Set(['identifier']),
  scopes: new Set([
    'module',
    'function_definition',
    'lambda',
    'class_definition',
    'list_comprehension',
    'set_comprehension',
    'dictionary_comprehension',
    'generator_expression',
  ]),
  roleOf(node) {
    const parent = node.parent;
    return parent ? identifierRole(node, parent) : { role: 'other' };
  },
  namespaceNames(node) {
    if (node.type !== 'import_statement') return [];
    return node
      .childrenForFieldName('name')
      .flatMap((name) => {
        if (name?.type === 'aliased_import') return [name.childForFieldName('alias')?.text ?? ''];
        return name ? [name.text.split('.')[0]] : [];
      })
      .filter(Boolean);
  },
  importModule(node) {
    const statement = ancestor(node, new Set(['import_from_statement']));
    return statement?.childForFieldName('module_name')?.text.replace(/\s+/g, '');
  },
  importedPaths(node) {
    if (node.type !== 'import_from_statement') return [];
    const module = node.childForFieldName('module_name')?.text.replace(/\s+/g, '');
    if (!module) return [];
    return node.childrenForFieldName('name').flatMap((name): [string, string][] => {
      if (name?.type === 'dotted_name') return [[name.text, `${module}.${name.text}`]];
      if (name?.type === 'aliased_import') {
        const imported = name.childForFieldName('name')?.text;
        const alias = name.childForFieldName('alias')?.text;
        return imported && alias ? [[alias, `${module}.${imported}`]] : [];
      }
      return [];
    });
  },
  isComment: (node) => node.type === 'comment' || isDocstring(node),
};
