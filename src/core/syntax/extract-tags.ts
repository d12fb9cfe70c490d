import { Query, type Language, type Node, type QueryMatch, type Tree } from 'web-tree-sitter';
import { LineIndex } from './line-index.js';
import { tagQuerySource } from './tag-queries/index.js';
import type { SymbolTag, SyntaxLanguage } from './types.js';

type Kind = NonNullable<SymbolTag['symbolKind']>;

/**
 * Bounds on one file's query run, so that a hostile file (deep nesting, huge files) cannot hold
 * the extractor: at most this many matches in progress at once (the oldest are dropped beyond
 * it), and a wall-clock budget after which the tags found so far are returned.
 */
export const TAG_QUERY_LIMITS = { matchLimit: 2048, timeoutMicros: 2_000_000 } as const;

/** Compiled once per grammar: compilation costs milliseconds, a run microseconds per tag. */
const compiled = new WeakMap<Language, Query>();

function tagQuery(language: SyntaxLanguage, grammar: Language): Query {
  let query = compiled.get(grammar);
  if (!query) {
    query = new Query(grammar, tagQuerySource(language, (type) => grammar.idForNodeType(type, true) !== null));
    compiled.set(grammar, query);
  }
  return query;
}

/** A tag before its scope is known. */
interface Pending {
  kind: SymbolTag['kind'];
  symbolKind?: Kind;
  /** `member`: the kind only inside a type; `init`: scoped by the class of the enclosing `__init__`. */
  scoping: 'fixed' | 'member' | 'init';
  fallback: boolean;
  name: string;
  nameId: number;
  nameStart: number;
  at: number;
  atId: number;
  anchorId: number;
  owner?: string;
  receiver?: string;
  scope?: string;
  dropped?: boolean;
}

interface Scope {
  id: number;
  start: number;
  end: number;
  /** Empty for a scope that hides the enclosing type (a function in Python). */
  name: string;
}

const TAG_KINDS = new Set<string>(['definition', 'reference', 'import', 'call', 'annotation']);

function unquote(text: string): string {
  return text.length >= 2 && /^["'`]/.test(text) && text[text.length - 1] === text[0] ? text.slice(1, -1) : text;
}

/** Collected from the matches of one file. */
interface Collected {
  tags: Pending[];
  scopes: Map<number, Scope>;
  /** Type names that are being declared, not referenced. */
  skipped: Set<number>;
  /** `__init__` method node id -> its class's name. */
  initOwners: Map<number, string>;
}

function collect(matches: QueryMatch[], source: string): Collected {
  const text = (node: Node) => source.slice(node.startIndex, node.endIndex);
  const out: Collected = { tags: [], scopes: new Map(), skipped: new Set(), initOwners: new Map() };
  for (const match of matches) {
    let tagName: string | undefined;
    let tagNode: Node | undefined;
    let anchor: Node | undefined;
    let opens: 'named' | 'hidden' | undefined;
    let at: Node | undefined;
    let owner: Node | undefined;
    let receiver: Node | undefined;
    let init: Node | undefined;
    let initOwner: Node | undefined;
    for (const { name, node } of match.captures) {
      if (name === 'anchor') anchor = node;
      else if (name === 'scope' || name === 'scope.hidden') {
        anchor = node;
        opens = name === 'scope' ? 'named' : 'hidden';
      } else if (name === 'at') at = node;
      else if (name === 'owner') owner = node;
      else if (name === 'receiver') receiver = node;
      else if (name === 'skip') out.skipped.add(node.id);
      else if (name === 'init') init = node;
      else if (name === 'init.owner') initOwner = node;
      else if (name === 'type.names') {
        // Every identifier in a type annotation, nested ones included (`Dict[str, Item]`).
        for (const id of node.descendantsOfType('identifier')) if (id) out.tags.push(pending('reference', id, text(id), id));
      } else if (TAG_KINDS.has(name.split('.', 1)[0])) {
        tagName = name;
        tagNode = node;
      }
    }
    if (init && initOwner) out.initOwners.set(init.id, text(initOwner));
    if (!tagName || !tagNode) continue;
    const [kind, ...rest] = tagName.split('.');
    const mods = new Set(kind === 'definition' ? rest.slice(1) : rest);
    let name = text(tagNode);
    if (kind === 'import') name = mods.has('path') ? name.replace(/\s+/g, '') + (mods.has('wildcard') ? '.*' : '') : unquote(name);
    const tag = pending(kind as SymbolTag['kind'], tagNode, name, at ?? tagNode);
    if (kind === 'definition') {
      tag.symbolKind = rest[0] as Kind;
      tag.scoping = mods.has('member') ? 'member' : mods.has('init') ? 'init' : 'fixed';
    }
    tag.fallback = mods.has('fallback');
    if (anchor) tag.anchorId = anchor.id;
    if (owner) tag.owner = text(owner);
    if (receiver) tag.receiver = text(receiver);
    out.tags.push(tag);
    if (opens && anchor && !out.scopes.has(anchor.id)) out.scopes.set(anchor.id, { id: anchor.id, start: anchor.startIndex, end: anchor.endIndex, name: opens === 'named' ? name : '' });
  }
  return out;
}

function pending(kind: SymbolTag['kind'], nameNode: Node, name: string, at: Node): Pending {
  return { kind, scoping: 'fixed', fallback: false, name, nameId: nameNode.id, nameStart: nameNode.startIndex, at: at.startIndex, atId: at.id, anchorId: -1 };
}

/** Innermost enclosing scope of each definition (other than the one its own node opens), in one sweep. */
function resolveScopes(definitions: Pending[], scopes: Scope[], initOwners: Map<number, string>): void {
  scopes.sort((a, b) => a.start - b.start || b.end - a.end);
  definitions.sort((a, b) => a.nameStart - b.nameStart);
  const open: Scope[] = [];
  let next = 0;
  for (const tag of definitions) {
    const p = tag.nameStart;
    while (next < scopes.length && scopes[next].start <= p) {
      const scope = scopes[next++];
      while (open.length && open[open.length - 1].end <= scope.start) open.pop();
      open.push(scope);
    }
    while (open.length && open[open.length - 1].end <= p) open.pop();
    let i = open.length - 1;
    if (i >= 0 && open[i].id === tag.anchorId) i--;
    const scope = i >= 0 ? open[i] : undefined;
    if (tag.owner !== undefined) tag.scope = tag.owner;
    else if (tag.scoping === 'init') {
      const owner = scope && initOwners.get(scope.id);
      if (owner) tag.scope = owner;
      else tag.dropped = true;
    } else {
      tag.scope = scope?.name || undefined;
      if (tag.scoping === 'member' && !tag.scope) tag.symbolKind = tag.symbolKind === 'method' ? 'function' : 'variable';
    }
  }
}

/**
 * Definitions, type references, imports, calls and annotations of one parsed file, in source
 * order. One run of the language's tag query (compiled once per grammar); the parser's query
 * engine visits the nodes, and only captured nodes reach JavaScript.
 */
export function extractTagsFromTree(language: SyntaxLanguage, tree: Tree, source: string): SymbolTag[] {
  const matches = tagQuery(language, tree.language).matches(tree.rootNode, TAG_QUERY_LIMITS);
  const { tags, scopes, skipped, initOwners } = collect(matches, source);
  const made = new Set<string>();
  for (const tag of tags) if (!tag.fallback) made.add(`${tag.kind} ${tag.atId}`);
  const kept = tags.filter((t) => !(t.kind === 'reference' && skipped.has(t.nameId)) && !(t.fallback && made.has(`${t.kind} ${t.atId}`)));
  resolveScopes(
    kept.filter((t) => t.kind === 'definition'),
    [...scopes.values()],
    initOwners,
  );
  const lines = new LineIndex(source);
  const result: { at: number; tag: SymbolTag }[] = [];
  for (const t of kept) {
    if (t.dropped) continue;
    const { line, column } = lines.position(t.at);
    const out: SymbolTag = { kind: t.kind, name: t.name, line, column, snippet: lines.snippet(line) };
    if (t.symbolKind) out.symbolKind = t.symbolKind;
    if (t.scope) out.scope = t.scope;
    if (t.receiver) out.receiver = t.receiver;
    result.push({ at: t.at, tag: out });
  }
  // Matches arrive by pattern progress, not strictly by position; report in source order (stable).
  return result.sort((a, b) => a.at - b.at).map((r) => r.tag);
}
