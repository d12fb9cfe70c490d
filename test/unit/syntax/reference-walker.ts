/**
 * The node-walking extractor that the query-driven one replaced, kept as the reference its output
 * is compared with.
 */
import type { Node, Tree } from 'web-tree-sitter';
import { LineIndex } from '../../../src/core/syntax/line-index.js';
import { walkTree } from '../../../src/core/syntax/walk-tree.js';
import type { SymbolTag, SyntaxLanguage } from '../../../src/core/syntax/types.js';

type Kind = NonNullable<SymbolTag['symbolKind']>;

/** What a handler sees: the node, its field name in the parent, and the innermost enclosing type. */
interface Visit {
  node: Node;
  field: string | null;
  scope: string | undefined;
  emit: (tag: Omit<SymbolTag, 'line' | 'column' | 'snippet'>, at: Node) => void;
}

/** A handler returns a type name when the node opens a scope for its descendants. */
type Handler = (visit: Visit) => string | undefined | void;

function nameOf(node: Node, field = 'name'): Node | null {
  return node.childForFieldName(field);
}

function unquote(text: string): string {
  return text.length >= 2 && /^["'`]/.test(text) && text[text.length - 1] === text[0] ? text.slice(1, -1) : text;
}

function definition(kind: Kind, opensScope: boolean): Handler {
  return ({ node, scope, emit }) => {
    const name = nameOf(node);
    if (!name) return;
    emit({ kind: 'definition', symbolKind: kind, name: name.text, scope }, name);
    return opensScope ? name.text : undefined;
  };
}

function member(kind: Kind): Handler {
  return ({ node, scope, emit }) => {
    const name = nameOf(node);
    if (name) emit({ kind: 'definition', symbolKind: scope ? kind : kind === 'method' ? 'function' : 'variable', name: name.text, scope }, name);
  };
}

/** Members of a type literal or interface, wherever the type is written (a parameter's inline type too). */
function signature(kind: Kind): Handler {
  return ({ node, scope, emit }) => {
    const name = nameOf(node);
    if (name) emit({ kind: 'definition', symbolKind: kind, name: name.text, scope }, name);
  };
}

/** A type reference, unless it is the declared name or a qualifier segment (`a` in `a.B`). */
const typeReference: Handler = ({ node, field, emit }) => {
  if (field === 'name') return;
  if (node.nextSibling?.type === '.') return;
  emit({ kind: 'reference', name: node.text }, node);
};

/** Java: a qualifier segment only inside a qualified type (`a` in `a.B`); the type of a class literal (`C.class`) is a reference. */
const javaTypeReference: Handler = (visit) => {
  if (visit.node.parent?.type !== 'scoped_type_identifier' && visit.node.nextSibling?.type === '.') {
    if (visit.field !== 'name') visit.emit({ kind: 'reference', name: visit.node.text }, visit.node);
    return;
  }
  return typeReference(visit);
};

const JAVA: Record<string, Handler> = {
  class_declaration: definition('class', true),
  record_declaration: definition('class', true),
  interface_declaration: definition('interface', true),
  annotation_type_declaration: definition('interface', true),
  enum_declaration: definition('enum', true),
  method_declaration: member('method'),
  constructor_declaration: member('method'),
  field_declaration: ({ node, scope, emit }) => {
    for (const declarator of node.childrenForFieldName('declarator')) {
      const name = declarator && nameOf(declarator);
      if (name) emit({ kind: 'definition', symbolKind: 'field', name: name.text, scope }, name);
    }
  },
  formal_parameter: ({ node, scope, emit }) => {
    // Record components are the record's fields.
    const name = nameOf(node);
    if (name && node.parent?.parent?.type === 'record_declaration') emit({ kind: 'definition', symbolKind: 'field', name: name.text, scope }, name);
  },
  type_identifier: javaTypeReference,
  import_declaration: ({ node, emit }) => {
    const path = node.namedChildren.find((c) => c?.type === 'scoped_identifier' || c?.type === 'identifier');
    if (!path) return;
    const wildcard = node.namedChildren.some((c) => c?.type === 'asterisk');
    emit({ kind: 'import', name: path.text.replace(/\s+/g, '') + (wildcard ? '.*' : '') }, path);
  },
  method_invocation: ({ node, emit }) => {
    const name = nameOf(node);
    const object = node.childForFieldName('object');
    if (!name) return;
    emit({ kind: 'call', name: name.text, receiver: object?.text }, name);
    if (object?.type === 'identifier' && /^[A-Z]/.test(object.text)) emit({ kind: 'reference', name: object.text }, object);
  },
  marker_annotation: ({ node, emit }) => {
    const name = nameOf(node);
    if (name) emit({ kind: 'annotation', name: name.text }, node);
  },
};
JAVA.annotation = JAVA.marker_annotation;

function jsImportSource(node: Node, emit: Visit['emit']): void {
  const source = node.childForFieldName('source');
  if (source) emit({ kind: 'import', name: unquote(source.text) }, source);
}

const JS_COMMON: Record<string, Handler> = {
  class_declaration: definition('class', true),
  abstract_class_declaration: definition('class', true),
  class: definition('class', true),
  interface_declaration: definition('interface', true),
  enum_declaration: definition('enum', false),
  // A type literal's members are fields of the alias (`type X = { a: boolean }`), not variables.
  type_alias_declaration: definition('type', true),
  function_declaration: definition('function', false),
  generator_function_declaration: definition('function', false),
  method_definition: ({ node, scope, emit }) => {
    const name = nameOf(node);
    // A method of an object literal is a method too, even outside any class.
    if (name) emit({ kind: 'definition', symbolKind: scope || node.parent?.type === 'object' ? 'method' : 'function', name: name.text, scope }, name);
  },
  method_signature: signature('method'),
  abstract_method_signature: signature('method'),
  public_field_definition: member('field'),
  field_definition: ({ node, scope, emit }) => {
    const name = node.childForFieldName('property');
    if (name) emit({ kind: 'definition', symbolKind: 'field', name: name.text, scope }, name);
  },
  property_signature: signature('field'),
  variable_declarator: ({ node, scope, emit }) => {
    const name = nameOf(node);
    const value = node.childForFieldName('value');
    if (name?.type === 'identifier' && value && /^(arrow_function|function_expression|function|generator_function)$/.test(value.type)) {
      emit({ kind: 'definition', symbolKind: 'function', name: name.text, scope }, name);
    }
  },
  type_identifier: typeReference,
  import_statement: ({ node, emit }) => jsImportSource(node, emit),
  export_statement: ({ node, emit }) => jsImportSource(node, emit),
  import_require_clause: ({ node, emit }) => jsImportSource(node, emit),
  call_expression: ({ node, emit }) => {
    const fn = node.childForFieldName('function');
    if (!fn) return;
    if (fn.type === 'import' || (fn.type === 'identifier' && fn.text === 'require')) {
      const first = node.childForFieldName('arguments')?.namedChildren[0];
      if (first?.type === 'string') emit({ kind: 'import', name: unquote(first.text) }, first);
      return;
    }
    if (fn.type === 'identifier') emit({ kind: 'call', name: fn.text }, fn);
    else if (fn.type === 'member_expression') {
      const property = fn.childForFieldName('property');
      if (property) emit({ kind: 'call', name: property.text, receiver: fn.childForFieldName('object')?.text }, property);
    }
  },
  new_expression: ({ node, emit }) => {
    const ctor = node.childForFieldName('constructor');
    if (ctor?.type === 'identifier') emit({ kind: 'reference', name: ctor.text }, ctor);
  },
  decorator: ({ node, emit }) => {
    const inner = node.namedChildren[0];
    if (!inner) return;
    const target = inner.type === 'call_expression' ? inner.childForFieldName('function') : inner;
    if (target) emit({ kind: 'annotation', name: target.text }, node);
  },
};

/** `self.x = …` inside a class's `__init__`: a field `x` of that class. */
function selfAttribute(node: Node, left: Node, emit: Visit['emit']): void {
  let method = node.parent;
  while (method && method.type !== 'function_definition' && method.type !== 'class_definition') method = method.parent;
  const owner = method?.type === 'function_definition' && nameOf(method)?.text === '__init__' ? method.parent?.parent : undefined;
  const attribute = left.childForFieldName('attribute');
  const className = owner?.type === 'class_definition' ? nameOf(owner)?.text : undefined;
  if (attribute && className) emit({ kind: 'definition', symbolKind: 'field', name: attribute.text, scope: className }, attribute);
}

const PYTHON: Record<string, Handler> = {
  class_definition: definition('class', true),
  function_definition: ({ node, scope, emit }) => {
    const name = nameOf(node);
    if (name) emit({ kind: 'definition', symbolKind: scope ? 'method' : 'function', name: name.text, scope }, name);
    // A nested function is not a method of the class around its parent.
    return name ? '' : undefined;
  },
  assignment: ({ node, scope, emit }) => {
    const left = node.childForFieldName('left');
    // Class attributes: assignments directly in a class body.
    if (scope && left?.type === 'identifier' && node.parent?.parent?.parent?.type === 'class_definition') {
      emit({ kind: 'definition', symbolKind: 'field', name: left.text, scope }, left);
    }
    // Instance attributes, declared by assignment to `self.x` in `__init__`.
    if (left?.type === 'attribute' && left.childForFieldName('object')?.text === 'self') selfAttribute(node, left, emit);
  },
  type: ({ node, emit }) => {
    for (const id of node.descendantsOfType('identifier')) if (id) emit({ kind: 'reference', name: id.text }, id);
  },
  import_statement: ({ node, emit }) => {
    for (const name of node.childrenForFieldName('name')) {
      const dotted = name?.type === 'aliased_import' ? name.childForFieldName('name') : name;
      if (dotted) emit({ kind: 'import', name: dotted.text }, dotted);
    }
  },
  import_from_statement: ({ node, emit }) => {
    const module = node.childForFieldName('module_name');
    if (module) emit({ kind: 'import', name: module.text }, module);
  },
  call: ({ node, emit }) => {
    const fn = node.childForFieldName('function');
    if (fn?.type === 'identifier') emit({ kind: 'call', name: fn.text }, fn);
    else if (fn?.type === 'attribute') {
      const attribute = fn.childForFieldName('attribute');
      if (attribute) emit({ kind: 'call', name: attribute.text, receiver: fn.childForFieldName('object')?.text }, attribute);
    }
  },
  decorator: ({ node, emit }) => {
    const inner = node.namedChildren[0];
    const target = inner?.type === 'call' ? inner.childForFieldName('function') : inner;
    if (target) emit({ kind: 'annotation', name: target.text }, node);
  },
};

function goReceiverType(node: Node): string | undefined {
  const receiver = node.childForFieldName('receiver');
  const type = receiver?.namedChildren[0]?.childForFieldName('type');
  if (!type) return undefined;
  const id = type.type === 'type_identifier' ? type : type.descendantsOfType('type_identifier')[0];
  return id?.text;
}

const GO: Record<string, Handler> = {
  type_spec: ({ node, emit }) => {
    const name = nameOf(node);
    const type = node.childForFieldName('type');
    if (!name) return;
    emit({ kind: 'definition', symbolKind: type?.type === 'interface_type' ? 'interface' : 'type', name: name.text }, name);
    return name.text;
  },
  field_declaration: ({ node, scope, emit }) => {
    for (const name of node.childrenForFieldName('name')) if (name) emit({ kind: 'definition', symbolKind: 'field', name: name.text, scope }, name);
  },
  method_spec: member('method'),
  method_elem: member('method'),
  function_declaration: definition('function', false),
  method_declaration: ({ node, emit }) => {
    const name = nameOf(node);
    if (name) emit({ kind: 'definition', symbolKind: 'method', name: name.text, scope: goReceiverType(node) }, name);
  },
  type_identifier: typeReference,
  import_spec: ({ node, emit }) => {
    const path = node.childForFieldName('path');
    if (path) emit({ kind: 'import', name: unquote(path.text) }, path);
  },
  call_expression: ({ node, emit }) => {
    const fn = node.childForFieldName('function');
    if (fn?.type === 'identifier') emit({ kind: 'call', name: fn.text }, fn);
    else if (fn?.type === 'selector_expression') {
      const field = fn.childForFieldName('field');
      if (field) emit({ kind: 'call', name: field.text, receiver: fn.childForFieldName('operand')?.text }, field);
    }
  },
};

/** Kotlin came after the walker was replaced: its tags are checked against written expectations instead. */
const HANDLERS: Partial<Record<SyntaxLanguage, Record<string, Handler>>> = {
  java: JAVA,
  typescript: JS_COMMON,
  tsx: JS_COMMON,
  javascript: JS_COMMON,
  python: PYTHON,
  go: GO,
};

/**
 * Definitions, type references, imports, calls and annotations of one parsed file, in source
 * order. One cursor walk; a node is materialised only when its type has a handler.
 */
export function extractTagsByWalk(language: SyntaxLanguage, tree: Tree, source: string): SymbolTag[] {
  const handlers = HANDLERS[language];
  if (!handlers) throw new Error(`no reference walker for ${language}`);
  const lines = new LineIndex(source);
  const tags: SymbolTag[] = [];
  const emit: Visit['emit'] = (tag, at) => {
    const { line, column } = lines.position(at.startIndex);
    const out: SymbolTag = { kind: tag.kind, name: tag.name, line, column, snippet: lines.snippet(line) };
    if (tag.symbolKind) out.symbolKind = tag.symbolKind;
    if (tag.scope) out.scope = tag.scope;
    if (tag.receiver) out.receiver = tag.receiver;
    tags.push(out);
  };
  const scopes: { depth: number; name: string }[] = [];
  walkTree(tree, scopes, (cursor, depth) => {
    const handler = handlers[cursor.nodeType];
    if (handler) {
      const scope = scopes.length ? scopes[scopes.length - 1].name : undefined;
      const opened = handler({ node: cursor.currentNode, field: cursor.currentFieldName, scope: scope || undefined, emit });
      if (typeof opened === 'string') scopes.push({ depth, name: opened });
    }
    return true;
  });
  // Handlers emit a declaration before its modifiers; report in source order (stable).
  return tags.sort((a, b) => a.line - b.line || a.column - b.column);
}
