import type { HasNodeType } from './vocabulary.js';

/** Tag patterns for Go. */
export function goTagPatterns(has: HasNodeType): string[] {
  const receiver =
    '[(type_identifier) @owner (pointer_type (type_identifier) @owner) (generic_type type: (type_identifier) @owner) (pointer_type (generic_type type: (type_identifier) @owner))]';
  return [
    '(type_spec name: (_) @definition.interface type: (interface_type)) @scope',
    '(type_spec name: (_) @definition.type.fallback) @scope',
    '(field_declaration name: (_) @definition.field)',
    // An interface's method: `method_spec` in older grammar builds, `method_elem` in current releases.
    ...['method_spec', 'method_elem'].filter(has).map((type) => `(${type} name: (_) @definition.method.member)`),
    '(function_declaration name: (_) @definition.function)',
    // One match per method: the receiver's type name when it has one of these shapes, else none
    // (a parenthesized receiver type, rare, has none: the method is then scoped as a function would be).
    `(method_declaration receiver: (parameter_list . (parameter_declaration type: ${receiver})?) name: (_) @definition.method)`,
    '(type_identifier) @reference',
    '(_ name: (type_identifier) @skip)',
    '((type_identifier) @skip . ".")',
    '(import_spec path: (_) @import)',
    '(call_expression function: (identifier) @call)',
    '(call_expression function: (selector_expression operand: (_) @receiver field: (field_identifier) @call))',
  ];
}
