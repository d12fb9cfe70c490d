import { anyOf, type HasNodeType } from './vocabulary.js';

/** Tag patterns for JavaScript, TypeScript and TSX; patterns over node types a grammar lacks are left out. */
export function javascriptTagPatterns(has: HasNodeType): string[] {
  const patterns: (string | false)[] = [];
  const declarations: [string, string, 'scope' | 'anchor'][] = [
    ['class_declaration', 'class', 'scope'],
    ['abstract_class_declaration', 'class', 'scope'],
    ['class', 'class', 'scope'],
    ['interface_declaration', 'interface', 'scope'],
    ['enum_declaration', 'enum', 'anchor'],
    // A type literal's members are fields of the alias (`type X = { a: boolean }`), not variables.
    ['type_alias_declaration', 'type', 'scope'],
    ['function_declaration', 'function', 'anchor'],
    ['generator_function_declaration', 'function', 'anchor'],
  ];
  for (const [node, kind, context] of declarations) if (has(node)) patterns.push(`(${node} name: (_) @definition.${kind}) @${context}`);
  const functionValue = anyOf(has, ['arrow_function', 'function_expression', 'function', 'generator_function']);
  const decoratorTarget = anyOf(has, ['identifier', 'member_expression', 'parenthesized_expression'], 'annotation');
  patterns.push(
    '(method_definition name: (_) @definition.method.member.fallback) @anchor',
    // A method of an object literal is a method too, even outside any class.
    '(object (method_definition name: (_) @definition.method) @anchor)',
    has('method_signature') && '(method_signature name: (_) @definition.method) @anchor',
    has('abstract_method_signature') && '(abstract_method_signature name: (_) @definition.method) @anchor',
    has('property_signature') && '(property_signature name: (_) @definition.field) @anchor',
    has('public_field_definition') && '(public_field_definition name: (_) @definition.field.member) @anchor',
    has('field_definition') && '(field_definition property: (_) @definition.field) @anchor',
    !!functionValue && `(variable_declarator name: (identifier) @definition.function value: ${functionValue}) @anchor`,
    has('type_identifier') && '(type_identifier) @reference',
    has('type_identifier') && '(_ name: (type_identifier) @skip)',
    has('type_identifier') && '((type_identifier) @skip . ".")',
    '(import_statement source: (_) @import)',
    '(export_statement source: (_) @import)',
    has('import_require_clause') && '(import_require_clause source: (_) @import)',
    '(call_expression function: (import) arguments: (arguments . (string) @import))',
    '(call_expression function: (identifier) @_require arguments: (arguments . (string) @import) (#eq? @_require "require"))',
    '(call_expression function: (identifier) @call (#not-eq? @call "require"))',
    '(call_expression function: (member_expression object: (_) @receiver property: (_) @call))',
    '(new_expression constructor: (identifier) @reference)',
    '(decorator . (call_expression function: (_) @annotation)) @at',
    !!decoratorTarget && `(decorator . ${decoratorTarget}) @at`,
  );
  return patterns.filter((p): p is string => typeof p === 'string');
}
