/** Tag patterns for Python. */
export function pythonTagPatterns(): string[] {
  return [
    '(class_definition name: (_) @definition.class) @scope',
    '(function_definition name: (_) @definition.method.member) @scope.hidden',
    // Class attributes: assignments directly in a class body.
    '(class_definition body: (block (expression_statement (assignment left: (identifier) @definition.field))))',
    // Instance attributes, declared by assignment to `self.x` in `__init__` (the class is found
    // from the scopes, for these tags only, rather than by a pattern matching every method).
    '(assignment left: (attribute object: (identifier) @_is.self attribute: (identifier) @definition.field.init))',
    // A type that is one name is a reference; a type whose node has inner nodes is expanded by
    // `type.names` in JavaScript (anchored to first children: one match per type, not per inner node).
    '(type (identifier) @reference)',
    '(type . (_ . (_))) @type.names',
    '(import_statement name: (dotted_name) @import)',
    '(import_statement name: (aliased_import name: (_) @import))',
    '(import_from_statement module_name: (_) @import)',
    '(call function: (identifier) @call)',
    '(call function: (attribute object: (_) @receiver attribute: (identifier) @call))',
    '(decorator . (call function: (_) @annotation)) @at',
    '(decorator . [(identifier) (attribute) (subscript) (parenthesized_expression)] @annotation) @at',
  ];
}
