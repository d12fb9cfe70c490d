import { anyOf, type HasNodeType } from './vocabulary.js';

/** Tag patterns for JavaScript, TypeScript and TSX; patterns over node types a grammar lacks are left out. */
export function javascriptTagPatterns(has: HasNodeType): string[] {
  const patterns: (string | false)[] = [];
  const declarations: [string, string, boolean][] = [
    ['class_declaration', 'class', true],
    ['abstract_class_declaration', 'class', true],
    ['class', 'class', true],
    ['interface_declaration', 'interface', true],
    ['enum_declaration', 'enum', false],
    // A type literal's members are fields of the alias (`type X = { a: boolean }`), not variables.
    ['type_alias_declaration', 'type', true],
    ['function_declaration', 'function', false],
    ['generator_function_declaration', 'function', false],
  ];
  for (const [node, kind, opensScope] of declarations) if (has(node)) patterns.push(`(${node} name: (_) @definition.${kind})${opensScope ? ' @scope' : ''}`);
  const functionValue = anyOf(has, ['arrow_function', 'function_expression', 'function', 'generator_function']);
  const decoratorTarget = anyOf(has, ['identifier', 'member_expression', 'parenthesized_expression'], 'annotation');
  patterns.push(
    '(method_definition name: (_) @definition.method.member.fallback)',
    // A method of an object literal is a method too, even outside any class.
    '(object (method_definition name: (_) @definition.method))',
    has('method_signature') && '(method_signature name: (_) @definition.method)',
    has('abstract_method_signature') && '(abstract_method_signature name: (_) @definition.method)',
    has('property_signature') && '(property_signature name: (_) @definition.field)',
    has('public_field_definition') && '(public_field_definition name: (_) @definition.field.member)',
    has('field_definition') && '(field_definition property: (_) @definition.field)',
    !!functionValue && `(variable_declarator name: (identifier) @definition.function value: ${functionValue})`,
    has('type_identifier') && '(type_identifier) @reference',
    has('type_identifier') && '(_ name: (type_identifier) @skip)',
    has('type_identifier') && '((type_identifier) @skip . ".")',
    '(import_statement source: (_) @import)',
    '(export_statement source: (_) @import)',
    has('import_require_clause') && '(import_require_clause source: (_) @import)',
    '(call_expression function: (import) arguments: (arguments . (string) @import))',
    '(call_expression function: (identifier) @_is.require arguments: (arguments . (string) @import))',
    '(call_expression function: (identifier) @call._not.require)',
    '(call_expression function: (member_expression object: (_) @receiver property: (_) @call))',
    '(new_expression constructor: (identifier) @reference)',
    '(decorator . (call_expression function: (_) @annotation)) @at',
    !!decoratorTarget && `(decorator . ${decoratorTarget}) @at`,
  );
  return patterns.filter((p): p is string => typeof p === 'string');
}
