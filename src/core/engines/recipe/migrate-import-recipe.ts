import type { Node, Tree } from 'web-tree-sitter';
import type { SyntaxLanguage } from '../../syntax/types.js';
import type { MigrateImportStep } from '../../task/recipe-steps.js';
import type { FileRecipeResult, RecipeContext, SpanEdit } from './recipe-types.js';
import { withImportPlacement } from './import-placement/place-imports.js';
import { applySpanEdits } from './span-edits.js';
import { goPackageName } from '../../syntax/go-package-name.js';

/** True when `name` is `prefix` or continues it after a `separator` (`a.b` matches `a.b.C`, never `a.bc`). */
export function matchesPrefix(name: string, prefix: string, separator: string): boolean {
  return name === prefix || name.startsWith(prefix + separator);
}

/** Every node of the tree in document order (explicit stack: trees can be deep). */
function* nodes(root: Node): Generator<Node> {
  const stack: Node[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    yield node;
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child) stack.push(child);
    }
  }
}

interface Collector {
  spans: SpanEdit[];
  notes: string[];
}

/** Replace the `from` prefix of a dotted or slashed name written at `start` (only when written without spaces). */
function rewritePrefix(out: Collector, name: string, start: number, step: MigrateImportStep, separator: string): boolean {
  if (!matchesPrefix(name, step.from, separator)) return false;
  out.spans.push({ start, end: start + step.from.length, text: step.to });
  return true;
}

const JAVA_CHAINS = new Set(['scoped_identifier', 'scoped_type_identifier', 'field_access']);

function migrateJava(tree: Tree, step: MigrateImportStep, out: Collector): void {
  for (const node of nodes(tree.rootNode)) {
    if (node.type === 'import_declaration') {
      const path = node.namedChildren.find((c) => c?.type === 'scoped_identifier' || c?.type === 'identifier');
      if (path && !/\s/.test(path.text)) rewritePrefix(out, path.text, path.startIndex, step, '.');
      continue;
    }
    // Fully qualified uses in code: the outermost dotted chain, outside imports and the package clause.
    if (JAVA_CHAINS.has(node.type) && !JAVA_CHAINS.has(node.parent?.type ?? '')) {
      if (hasAncestor(node, ['import_declaration', 'package_declaration'])) continue;
      const text = node.text;
      if (/\s/.test(text) || !matchesPrefix(text, step.from, '.')) continue;
      // The prefix must be the whole first segments of the chain, not a local variable's field chain that happens to match.
      out.spans.push({ start: node.startIndex, end: node.startIndex + step.from.length, text: step.to });
    }
  }
}

/**
 * Kotlin: `import a.b.C [as D]` and fully qualified names in code, as expressions
 * (`javax.persistence.Persistence.create()`) and as types (`javax.persistence.EntityManager`).
 */
function migrateKotlin(tree: Tree, step: MigrateImportStep, out: Collector): void {
  for (const node of nodes(tree.rootNode)) {
    if (node.type === 'import_header') {
      const path = node.namedChildren.find((c) => c?.type === 'identifier');
      if (path && !/\s/.test(path.text)) rewritePrefix(out, path.text, path.startIndex, step, '.');
      continue;
    }
    const outermost =
      (node.type === 'navigation_expression' && node.parent?.type !== 'navigation_expression') ||
      (node.type === 'user_type' && node.namedChildren.filter((c) => c?.type === 'type_identifier').length > 1);
    if (!outermost || hasAncestor(node, ['import_header', 'package_header'])) continue;
    const text = node.text;
    const dotted = /^[\w.]+/.exec(text)?.[0] ?? '';
    if (matchesPrefix(dotted, step.from, '.')) out.spans.push({ start: node.startIndex, end: node.startIndex + step.from.length, text: step.to });
  }
}

function hasAncestor(node: Node, types: string[]): boolean {
  for (let p = node.parent; p; p = p.parent) if (types.includes(p.type)) return true;
  return false;
}

/** The string node's content span (without quotes), when it is a plain string without substitutions. */
function stringContent(node: Node | null | undefined): { text: string; start: number } | undefined {
  if (!node || node.type !== 'string') return undefined;
  const fragments = node.namedChildren.filter((c) => c?.type === 'string_fragment');
  if (node.namedChildren.length !== fragments.length) return undefined;
  return { text: node.text.slice(1, -1), start: node.startIndex + 1 };
}

function migrateJs(tree: Tree, step: MigrateImportStep, out: Collector): void {
  for (const node of nodes(tree.rootNode)) {
    let source: Node | null | undefined;
    if (node.type === 'import_statement' || node.type === 'export_statement' || node.type === 'import_require_clause')
      source = node.childForFieldName('source');
    else if (node.type === 'call_expression') {
      const fn = node.childForFieldName('function');
      if (fn && (fn.type === 'import' || (fn.type === 'identifier' && fn.text === 'require'))) source = node.childForFieldName('arguments')?.namedChildren[0];
    }
    const content = stringContent(source);
    if (content) rewritePrefix(out, content.text, content.start, step, '/');
  }
}

function migratePython(tree: Tree, step: MigrateImportStep, out: Collector): void {
  let plainImport = false;
  for (const node of nodes(tree.rootNode)) {
    if (node.type === 'import_statement') plainImport = migratePythonImport(node, step, out) || plainImport;
    else if (node.type === 'import_from_statement') {
      const module = node.childForFieldName('module_name');
      if (module?.type === 'dotted_name' && !/\s/.test(module.text)) rewritePrefix(out, module.text, module.startIndex, step, '.');
    }
  }
  // After `import a.b`, code names the module by its dotted path (`a.b.f()`): those uses move too.
  if (plainImport && step.from.includes('.')) migratePythonDottedUses(tree, step, out);
}

/**
 * `import a.b [as c], …`: each moved name; true when one moved without an alias (code then names it
 * by its dotted path). A top-level `import a` keeps its name: `import b as a`.
 */
function migratePythonImport(node: Node, step: MigrateImportStep, out: Collector): boolean {
  let plainImport = false;
  for (const name of node.childrenForFieldName('name')) {
    const aliased = name?.type === 'aliased_import';
    const dotted = aliased ? name.childForFieldName('name') : name;
    if (!dotted || /\s/.test(dotted.text)) continue;
    // `import a` binds `a`, which the code keeps using: the new module is imported under that name.
    if (!aliased && dotted.text === step.from && !step.from.includes('.') && step.to.split('.')[0] !== step.from) {
      out.spans.push({ start: dotted.startIndex, end: dotted.endIndex, text: `${step.to} as ${step.from}` });
      continue;
    }
    if (rewritePrefix(out, dotted.text, dotted.startIndex, step, '.') && !aliased) plainImport = true;
  }
  return plainImport;
}

function migratePythonDottedUses(tree: Tree, step: MigrateImportStep, out: Collector): void {
  for (const node of nodes(tree.rootNode)) {
    if (node.type !== 'attribute' || node.parent?.type === 'attribute') continue;
    if (hasAncestor(node, ['import_statement', 'import_from_statement'])) continue;
    const text = node.text;
    if (!/\s/.test(text) && text.startsWith(`${step.from}.`))
      out.spans.push({ start: node.startIndex, end: node.startIndex + step.from.length, text: step.to });
  }
}

/**
 * Functions of a Go package that moved to several packages (`io/ioutil` to `io` and `os`): a
 * qualifier is rewritten only for a name that moved to the target; the others are left, named in
 * a note, for the verification's name check to stop on rather than to become a call that does
 * not exist.
 */
const GO_SPLIT_PACKAGES: Record<string, Record<string, string>> = {
  'io/ioutil': { ReadAll: 'io', NopCloser: 'io', Discard: 'io', ReadFile: 'os', WriteFile: 'os', ReadDir: 'os', TempFile: 'os', TempDir: 'os' },
};

function migrateGo(tree: Tree, step: MigrateImportStep, out: Collector): void {
  const specs = [...nodes(tree.rootNode)].filter((n) => n.type === 'import_spec');
  const pathOf = (spec: Node) => {
    const path = spec.childForFieldName('path');
    return path?.type === 'interpreted_string_literal' ? path.text.slice(1, -1) : undefined;
  };
  const unaliased = new Set(specs.filter((s) => !s.childForFieldName('name')).map(pathOf));
  for (const spec of specs) {
    const value = pathOf(spec);
    if (value === undefined || !matchesPrefix(value, step.from, '/')) continue;
    const renamed = step.to + value.slice(step.from.length);
    const [before, after] = [goPackageName(value), goPackageName(renamed)];
    const aliased = Boolean(spec.childForFieldName('name'));
    const qualifiers = !aliased && after !== before ? goQualifierEdits(tree, { before, after, from: value, to: renamed }) : { spans: [], left: [] };
    out.spans.push(...qualifiers.spans);
    out.notes.push(...qualifiers.left.map((member) => leftNote(before, member, renamed, GO_SPLIT_PACKAGES[value]?.[member])));
    if (qualifiers.left.length > 0) {
      // Part of a split package moves: the old import stays for what is left, the new one joins it.
      if (qualifiers.spans.length > 0 && !unaliased.has(renamed)) out.spans.push(goImportAfter(tree.rootNode.text, spec, renamed));
    } else if (!aliased && unaliased.has(renamed)) {
      // The file imports the new path already: this import goes, its uses take the other's name.
      out.spans.push(lineOf(tree.rootNode.text, importLineNode(spec)));
    } else rewritePrefix(out, value, spec.childForFieldName('path')!.startIndex + 1, step, '/');
  }
}

/** An import of `path` on its own line after `spec` (in its parenthesised list, or as a declaration of its own). */
function goImportAfter(text: string, spec: Node, path: string): SpanEdit {
  const line = importLineNode(spec);
  const end = text.indexOf('\n', line.endIndex);
  const at = end < 0 ? text.length : end + 1;
  const indent = /^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', line.startIndex - 1) + 1))![0];
  const written = line === spec ? `${indent}"${path}"\n` : `${indent}import "${path}"\n`;
  return { start: at, end: at, text: end < 0 ? `\n${written}` : written };
}

function leftNote(before: string, member: string, to: string, home: string | undefined): string {
  return `${before}.${member} is not in "${to}"${home ? ` (it moved to "${home}")` : ''}: left as it is, for a maintainer or a follow-up step`;
}

/** The node whose lines an import occupies: the spec in a parenthesised list, the whole declaration otherwise. */
function importLineNode(spec: Node): Node {
  return spec.parent?.type === 'import_spec_list' ? spec : (spec.parent ?? spec);
}

/** A deletion of the whole lines `node` spans, its indentation and line end included. */
function lineOf(text: string, node: Node): SpanEdit {
  const start = text.lastIndexOf('\n', node.startIndex - 1) + 1;
  const newline = text.indexOf('\n', node.endIndex);
  return { start, end: newline < 0 ? text.length : newline + 1, text: '' };
}

/** `before.X` becomes `after.X` in code and types, but for a name the package split off elsewhere: those are left, and returned. */
function goQualifierEdits(tree: Tree, names: { before: string; after: string; from: string; to: string }): { spans: SpanEdit[]; left: string[] } {
  const split = GO_SPLIT_PACKAGES[names.from];
  const left = new Set<string>();
  const spans: SpanEdit[] = [];
  for (const node of nodes(tree.rootNode)) {
    const qualifier =
      node.type === 'selector_expression' ? node.childForFieldName('operand') : node.type === 'qualified_type' ? node.childForFieldName('package') : null;
    const member = node.childForFieldName(node.type === 'selector_expression' ? 'field' : 'name')?.text ?? '';
    if (!qualifier || qualifier.text !== names.before || (qualifier.type !== 'identifier' && qualifier.type !== 'package_identifier')) continue;
    if (split && split[member] !== goPackageName(names.to)) {
      left.add(member);
      continue;
    }
    spans.push({ start: qualifier.startIndex, end: qualifier.endIndex, text: names.after });
  }
  return { spans, left: [...left].sort() };
}

const MIGRATORS: Record<SyntaxLanguage, (tree: Tree, step: MigrateImportStep, out: Collector) => void> = {
  java: migrateJava,
  kotlin: migrateKotlin,
  typescript: migrateJs,
  tsx: migrateJs,
  javascript: migrateJs,
  python: migratePython,
  go: migrateGo,
};

/**
 * Move imports (and, for Java, fully qualified names in code) from the `from` module prefix to
 * `to`, matching at segment boundaries (`.` for Java and Python, `/` for Go and JS/TS).
 * Strings and comments that are not imports are left alone. A rewritten import moves to the
 * group and sorted position the file's own import blocks use.
 */
export function applyMigrateImport(step: MigrateImportStep, file: { path: string; text: string }, ctx: RecipeContext): FileRecipeResult | undefined {
  const language = ctx.syntax.languageFor(file.path);
  if (!language) return undefined;
  const out: Collector = { spans: [], notes: [] };
  ctx.syntax.withTree(language, file.text, (tree) => MIGRATORS[language](tree, step, out));
  return applySpanEdits(file.text, withImportPlacement(language, file.text, dedupe(out.spans), ctx.syntax, ctx.importLayout?.(language)), out.notes);
}

function dedupe(spans: SpanEdit[]): SpanEdit[] {
  const seen = new Set<string>();
  return spans.filter((s) => {
    const key = `${s.start}:${s.end}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
