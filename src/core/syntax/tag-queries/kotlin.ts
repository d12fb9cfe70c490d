/**
 * Tag patterns for Kotlin. The grammar names no fields: a declaration's name is its direct
 * `type_identifier` (types) or `simple_identifier` (functions, properties) child.
 */
export function kotlinTagPatterns(): string[] {
  return [
    '(class_declaration "interface" (type_identifier) @definition.interface) @scope',
    '(class_declaration (type_identifier) @definition.enum (enum_class_body)) @scope',
    '(class_declaration (type_identifier) @definition.class.fallback) @scope',
    '(object_declaration (type_identifier) @definition.class) @scope',
    '(type_alias (type_identifier) @definition.type)',
    '(function_declaration (simple_identifier) @definition.method.member) @scope.hidden',
    // Properties of a type (in its body or as `val`/`var` constructor parameters) and of a file.
    '(class_body (property_declaration (variable_declaration (simple_identifier) @definition.field)))',
    '(class_parameter (binding_pattern_kind) (simple_identifier) @definition.field)',
    '(enum_entry (simple_identifier) @definition.field)',
    '(source_file (property_declaration (variable_declaration (simple_identifier) @definition.variable)))',
    '(type_identifier) @reference',
    '(class_declaration (type_identifier) @skip)',
    '(object_declaration (type_identifier) @skip)',
    '(type_alias (type_identifier) @skip)',
    '(type_parameter (type_identifier) @skip)',
    '(import_alias (type_identifier) @skip)',
    // A qualifier segment (`javax` and `persistence` in `javax.persistence.Entity`) is not a reference.
    '(user_type (type_identifier) @skip . ".")',
    '(import_header (identifier) @import.path.wildcard (wildcard_import))',
    '(import_header (identifier) @import.path.fallback)',
    '(call_expression . (simple_identifier) @call)',
    '(call_expression . (navigation_expression (_) @receiver (navigation_suffix (simple_identifier) @call)))',
    '(annotation (user_type) @annotation) @at',
    '(annotation (constructor_invocation (user_type) @annotation)) @at',
  ];
}
