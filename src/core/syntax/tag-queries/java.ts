import type { HasNodeType } from './vocabulary.js';

/** Tag patterns for Java. */
export function javaTagPatterns(has: HasNodeType): string[] {
  const types: [string, string][] = [
    ['class_declaration', 'class'],
    ['record_declaration', 'class'],
    ['interface_declaration', 'interface'],
    ['annotation_type_declaration', 'interface'],
    ['enum_declaration', 'enum'],
  ];
  return [
    ...types.filter(([node]) => has(node)).map(([node, kind]) => `(${node} name: (_) @definition.${kind}) @scope`),
    '(method_declaration name: (_) @definition.method.member)',
    '(constructor_declaration name: (_) @definition.method.member)',
    '(field_declaration declarator: (variable_declarator name: (_) @definition.field))',
    // Record components are the record's fields.
    '(record_declaration parameters: (formal_parameters (formal_parameter name: (_) @definition.field)))',
    '(type_identifier) @reference',
    '(_ name: (type_identifier) @skip)',
    '(scoped_type_identifier (type_identifier) @skip . ".")',
    '(import_declaration [(scoped_identifier) (identifier)] @import.path.wildcard (asterisk))',
    '(import_declaration [(scoped_identifier) (identifier)] @import.path.fallback)',
    '(method_invocation object: (_) @receiver name: (identifier) @call)',
    '(method_invocation !object name: (identifier) @call)',
    '(method_invocation object: (identifier) @reference._capitalized)',
    '[(marker_annotation name: (_) @annotation) (annotation name: (_) @annotation)] @at',
  ];
}
