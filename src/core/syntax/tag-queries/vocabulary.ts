/**
 * The capture names the tag queries use, read by `extract-tags.ts`. One match makes at most one tag.
 *
 * Tag captures (the captured node's text is the tag's name, and its start the tag's position):
 * - `definition.<symbolKind>`: a definition of that kind, scoped by the innermost enclosing type;
 * - `definition.<kind>.member`: that kind inside a type, else a function (for `method`) or a variable;
 * - `definition.field.init`: a `self.x` assignment, a field of the class whose `__init__` encloses it
 *   (the innermost enclosing scope is a hidden one defined as `__init__`, directly in a class body);
 * - `reference`, `call`, `import`, `annotation`: the other tag kinds.
 * Modifiers after the kind: `.path` (a dotted path; whitespace removed), `.wildcard` (append `.*`),
 * `.fallback` (dropped when another tag of the same kind was made at the same position).
 *
 * Context captures:
 * - `scope`: the declaring node opens a scope named after the definition for its descendants (and
 *   the definition itself is scoped by the scope around it);
 * - `scope.hidden`: opens a scope without a name (a nested function is not a method);
 * - `owner`: an explicit scope (a Go method's receiver type);
 * - `at`: the tag's position, when it is not the name's (an annotation starts at its `@`);
 * - `receiver`: a call's receiver text: the object of the member access whose name is the `call`
 *   capture, separated from it by a `.` (its end is then read from the source, see `source-ends.ts`);
 * - `skip`: this type name is not a reference (it is being declared);
 * - `type.names`: every identifier below this node is a type reference (its pattern leaves out a
 *   type that is a single name, which a pattern of its own makes a reference).
 * Filters, read in JavaScript from the source (the query engine's text predicates copy the text of
 * every candidate; these compare in place):
 * - `_is.<text>` / `_not.<text>`: the match stands only if the node's text is / is not `<text>`;
 * - `_capitalized`: the match stands only if the node's text starts with an ASCII capital.
 * A filter on the tag's own node is written after the tag capture's name, in the same capture
 * (`@call._not.require`): the runtime then hands over one node, not one per capture.
 */
export type HasNodeType = (type: string) => boolean;

/** `[(a) (b)]` over the node types the grammar has, or undefined when it has none of them. */
export function anyOf(has: HasNodeType, types: readonly string[], capture = ''): string | undefined {
  const known = types.filter(has);
  if (!known.length) return undefined;
  const body = known.length === 1 ? `(${known[0]})` : `[${known.map((t) => `(${t})`).join(' ')}]`;
  return capture ? `${body} @${capture}` : body;
}
