import { Query, type Language, type Node, type QueryMatch, type Tree } from 'web-tree-sitter';
import { LineIndex } from './line-index.js';
import { identifierEnd, receiverEnd } from './source-ends.js';
import { tagQuerySource } from './tag-queries/index.js';
import type { SymbolTag, SyntaxLanguage } from './types.js';

type Kind = NonNullable<SymbolTag['symbolKind']>;

/**
 * Bounds on one file's query run, so that a hostile file (deep nesting, a huge file) cannot hold
 * the extractor: at most this many matches in progress at once (beyond it the earliest started
 * are dropped), and a wall-clock budget after which the run stops and the file yields no tags.
 */
export const TAG_QUERY_LIMITS = { matchLimit: 2048, timeoutMicros: 5_000_000 } as const;

/** What a capture name means (see `tag-queries/vocabulary.ts`), parsed once per query. */
type Role = { role: 'scope' | 'scope.hidden' | 'at' | 'owner' | 'receiver' | 'skip' | 'type.names' | 'ignored' } | Filter | TagRole;

type Filter = { role: 'filter'; text: string; negated: boolean } | { role: 'capitalized' };

interface TagRole {
  role: 'tag';
  kind: SymbolTag['kind'];
  symbolKind?: Kind;
  scoping: Pending['scoping'];
  fallback: boolean;
  path: boolean;
  wildcard: boolean;
  /** A filter on the tag's own node, carried by its capture. */
  filter?: Filter;
}

interface CompiledTagQuery {
  query: Query;
  /** Role of each capture, by capture name. */
  roles: Map<string, Role>;
  /** Whether the language's identifiers may contain `$`. */
  dollar: boolean;
}

const CONTEXT_ROLES = new Set(['scope', 'scope.hidden', 'at', 'owner', 'receiver', 'skip', 'type.names']);
const TAG_KINDS = new Set(['definition', 'reference', 'import', 'call', 'annotation']);
const IGNORED: Role = { role: 'ignored' };

function filterOf(name: string): Filter | undefined {
  if (name === '_capitalized') return { role: 'capitalized' };
  const filter = /^_(is|not)\.(.+)$/.exec(name);
  return filter ? { role: 'filter', text: filter[2], negated: filter[1] === 'not' } : undefined;
}

function roleOf(name: string): Role {
  if (CONTEXT_ROLES.has(name)) return { role: name } as Role;
  const standalone = filterOf(name);
  if (standalone) return standalone;
  // `call._not.require`: the tag and a filter on the same node in one capture, so the runtime
  // hands over one node, not two.
  const split = name.indexOf('._');
  const filter = split < 0 ? undefined : filterOf(name.slice(split + 1));
  if (split >= 0 && !filter) throw new Error(`unknown filter in capture @${name}`);
  const [kind, ...rest] = (split < 0 ? name : name.slice(0, split)).split('.');
  if (!TAG_KINDS.has(kind)) return IGNORED;
  const mods = new Set(kind === 'definition' ? rest.slice(1) : rest);
  return {
    role: 'tag',
    kind: kind as SymbolTag['kind'],
    symbolKind: kind === 'definition' ? (rest[0] as Kind) : undefined,
    scoping: mods.has('member') ? 'member' : mods.has('init') ? 'init' : 'fixed',
    fallback: mods.has('fallback'),
    path: mods.has('path'),
    wildcard: mods.has('wildcard'),
    filter,
  };
}

const DOLLAR_IDENTIFIERS = new Set<SyntaxLanguage>(['java', 'typescript', 'tsx', 'javascript']);

/** Compiled once per grammar: compilation takes milliseconds, a run microseconds per tag. */
const compiled = new WeakMap<Language, CompiledTagQuery>();

/** The tag query of a language for its loaded grammar; throws the runtime's QueryError when they do not fit. */
export function compileTagQuery(language: SyntaxLanguage, grammar: Language): CompiledTagQuery {
  let entry = compiled.get(grammar);
  if (!entry) {
    const query = new Query(
      grammar,
      tagQuerySource(language, (type) => grammar.idForNodeType(type, true) !== null),
    );
    entry = { query, roles: new Map(query.captureNames.map((name) => [name, roleOf(name)])), dollar: DOLLAR_IDENTIFIERS.has(language) };
    compiled.set(grammar, entry);
  }
  return entry;
}

/** A tag before its scope is known. */
interface Pending {
  kind: SymbolTag['kind'];
  symbolKind?: Kind;
  /** `member`: the kind only inside a type; `init`: scoped by the class whose `__init__` encloses it. */
  scoping: 'fixed' | 'member' | 'init';
  fallback: boolean;
  name: string;
  nameId: number;
  nameStart: number;
  at: number;
  atId: number;
  /** The declaring node, when it opens a scope: the definition itself is outside that scope. */
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
  /** The name of the definition that opens it, hidden or not. */
  definedName: string;
  node: Node;
  /** For an `__init__`: the class it initialises, once asked (null: none). */
  initOf?: string | null;
}

function unquote(text: string): string {
  return text.length >= 2 && /^["'`]/.test(text) && text[text.length - 1] === text[0] ? text.slice(1, -1) : text;
}

function pending(kind: SymbolTag['kind'], nameNode: Node, name: string, at: Node): Pending {
  return { kind, scoping: 'fixed', fallback: false, name, nameId: nameNode.id, nameStart: nameNode.startIndex, at: at.startIndex, atId: at.id, anchorId: -1 };
}

/** Collected from the matches of one file. */
interface Collected {
  tags: Pending[];
  scopes: Map<number, Scope>;
  /** Type names that are being declared, not referenced. */
  skipped: Set<number>;
  hasFallbacks: boolean;
}

/**
 * Whether a node's text is `text`. Read from the source, so the engine's end offset (a call into
 * wasm) is asked only when the start already fits; cheaper than a query predicate, which copies
 * the text of every candidate.
 */
function hasText(source: string, node: Node, text: string): boolean {
  return source.startsWith(text, node.startIndex) && node.endIndex - node.startIndex === text.length;
}

function isCapitalized(source: string, node: Node): boolean {
  const c = source.charCodeAt(node.startIndex);
  return c >= 65 && c <= 90;
}

function passes(source: string, node: Node, filter: Filter): boolean {
  return filter.role === 'capitalized' ? isCapitalized(source, node) : hasText(source, node, filter.text) !== filter.negated;
}

/**
 * The captures of one match, by role. One instance per file, reset for each match, so that reading
 * a match allocates nothing.
 */
interface MatchCaptures {
  tagRole: TagRole | undefined;
  tagNode: Node | undefined;
  anchor: Node | undefined;
  opens: 'named' | 'hidden' | undefined;
  at: Node | undefined;
  owner: Node | undefined;
  receiver: Node | undefined;
  skip: Node | undefined;
  names: Node | undefined;
  rejected: boolean;
}

function emptyCaptures(): MatchCaptures {
  return {
    tagRole: undefined,
    tagNode: undefined,
    anchor: undefined,
    opens: undefined,
    at: undefined,
    owner: undefined,
    receiver: undefined,
    skip: undefined,
    names: undefined,
    rejected: false,
  };
}

function resetCaptures(c: MatchCaptures): void {
  c.tagRole = c.tagNode = c.anchor = c.at = c.owner = c.receiver = c.skip = c.names = c.opens = undefined;
  c.rejected = false;
}

/** Files one capture of a match under its role. */
function readCapture(c: MatchCaptures, role: Role, node: Node, source: string): void {
  switch (role.role) {
    case 'filter':
    case 'capitalized':
      if (!passes(source, node, role)) c.rejected = true;
      break;
    case 'tag':
      if (role.filter && !passes(source, node, role.filter)) c.rejected = true;
      c.tagRole = role;
      c.tagNode = node;
      break;
    case 'scope':
    case 'scope.hidden':
      c.anchor = node;
      c.opens = role.role === 'scope' ? 'named' : 'hidden';
      break;
    case 'at':
      c.at = node;
      break;
    case 'owner':
      c.owner = node;
      break;
    case 'receiver':
      c.receiver = node;
      break;
    case 'skip':
      c.skip = node;
      break;
    case 'type.names':
      c.names = node;
      break;
    default:
  }
}

function readMatch(c: MatchCaptures, match: QueryMatch, roles: Map<string, Role>, source: string): void {
  resetCaptures(c);
  for (const { name, node } of match.captures) readCapture(c, roles.get(name) ?? IGNORED, node, source);
}

function textOf(source: string, node: Node): string {
  return source.slice(node.startIndex, node.endIndex);
}

/** The name a tag reports: a call's name read from the source when `exact`, an import's path normalised. */
function tagName(role: TagRole, node: Node, source: string, dollar: boolean, exact: boolean): string {
  const nameEnd = exact && role.kind === 'call' ? identifierEnd(source, node.startIndex, dollar) : -1;
  const name = nameEnd < 0 ? textOf(source, node) : source.slice(node.startIndex, nameEnd);
  if (role.kind !== 'import') return name;
  return role.path ? name.replace(/\s+/g, '') + (role.wildcard ? '.*' : '') : unquote(name);
}

/** The pending tag of a match whose captures hold a tag. */
function tagOfMatch(c: MatchCaptures, role: TagRole, node: Node, source: string, dollar: boolean, exact: boolean): Pending {
  const tag = pending(role.kind, node, tagName(role, node, source, dollar, exact), c.at ?? node);
  if (role.symbolKind) tag.symbolKind = role.symbolKind;
  tag.scoping = role.scoping;
  tag.fallback = role.fallback;
  if (c.anchor) tag.anchorId = c.anchor.id;
  if (c.owner) tag.owner = textOf(source, c.owner);
  if (c.receiver) {
    const end = exact ? receiverEnd(source, c.receiver.startIndex, node.startIndex) : -1;
    tag.receiver = end < 0 ? textOf(source, c.receiver) : source.slice(c.receiver.startIndex, end);
  }
  return tag;
}

/** The scope a match's anchor opens, named for the tag (hidden: unnamed), once per anchor. */
function openScope(out: Collected, c: MatchCaptures, name: string): void {
  const anchor = c.anchor;
  if (!c.opens || !anchor || out.scopes.has(anchor.id)) return;
  out.scopes.set(anchor.id, {
    id: anchor.id,
    start: anchor.startIndex,
    end: anchor.endIndex,
    name: c.opens === 'named' ? name : '',
    definedName: name,
    node: anchor,
  });
}

/**
 * `exact`: the tree has no errors, so a call's name and receiver can be read from the source
 * (`source-ends.ts`); otherwise every text is cut at the end offset the engine gives.
 */
function collect(matches: QueryMatch[], compiledQuery: CompiledTagQuery, source: string, exact: boolean): Collected {
  const { roles, dollar } = compiledQuery;
  const out: Collected = { tags: [], scopes: new Map(), skipped: new Set(), hasFallbacks: false };
  const compound = new Map<number, Node>();
  const c = emptyCaptures();
  for (const match of matches) {
    readMatch(c, match, roles, source);
    if (c.rejected) continue;
    if (c.skip) out.skipped.add(c.skip.id);
    if (c.names) compound.set(c.names.id, c.names);
    if (!c.tagRole || !c.tagNode) continue;
    const tag = tagOfMatch(c, c.tagRole, c.tagNode, source, dollar, exact);
    out.hasFallbacks ||= tag.fallback;
    out.tags.push(tag);
    openScope(out, c, tag.name);
  }
  // Every identifier in a compound type annotation, nested ones included (`Dict[str, Item]`): a name
  // inside a nested type is reported once per enclosing type, as the node walk did.
  for (const node of compound.values()) {
    for (const name of node.descendantsOfType('identifier')) if (name) out.tags.push(pending('reference', name, textOf(source, name), name));
  }
  return out;
}

/**
 * The class a method initialises: the method is `__init__` and sits directly in the body of the
 * named scope around it (not under a decorator, a condition or another function). Asked only for
 * the scope of an `init` tag, so the two steps up the tree (calls into the engine) are taken once
 * per `__init__` rather than a pattern matching every method of every class.
 */
function initialisedClass(method: Scope, around: Scope | undefined): string | undefined {
  if (method.initOf === undefined) {
    const inClassBody =
      method.name === '' && method.definedName === '__init__' && around !== undefined && around.name !== '' && method.node.parent?.parent?.id === around.id;
    method.initOf = inClassBody ? around.name : null;
  }
  return method.initOf ?? undefined;
}

/** Innermost enclosing scope of each definition (other than the one its own node opens), in one sweep. */
function resolveScopes(definitions: Pending[], scopes: Scope[]): void {
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
      const owner = scope && initialisedClass(scope, open[i - 1]);
      if (owner) tag.scope = owner;
      else tag.dropped = true;
    } else {
      tag.scope = scope?.name || undefined;
      if (tag.scoping === 'member' && !tag.scope) tag.symbolKind = tag.symbolKind === 'method' ? 'function' : 'variable';
    }
  }
}

const KIND_INDEX: Record<SymbolTag['kind'], number> = { definition: 0, reference: 1, import: 2, call: 3, annotation: 4 };

/**
 * Definitions, type references, imports, calls and annotations of one parsed file, in source
 * order. One run of the language's tag query (compiled once per grammar); the parser's query
 * engine visits the nodes, and only captured nodes reach JavaScript.
 */
export function extractTagsFromTree(language: SyntaxLanguage, tree: Tree, source: string): SymbolTag[] {
  const compiledQuery = compileTagQuery(language, tree.language);
  const root = tree.rootNode;
  const matches = compiledQuery.query.matches(root, TAG_QUERY_LIMITS);
  const { tags, scopes, skipped, hasFallbacks } = collect(matches, compiledQuery, source, !root.hasError);
  // A fallback pattern's tag stands only where no other pattern made one of its kind (node ids are below 2^32).
  const made = new Set<number>();
  if (hasFallbacks) for (const t of tags) if (!t.fallback) made.add(t.atId * 8 + KIND_INDEX[t.kind]);
  const kept = tags.filter((t) => !(t.kind === 'reference' && skipped.has(t.nameId)) && !(t.fallback && made.has(t.atId * 8 + KIND_INDEX[t.kind])));
  resolveScopes(
    kept.filter((t) => t.kind === 'definition'),
    [...scopes.values()],
  );
  // Matches arrive by pattern progress, not strictly by position; report in source order (stable).
  kept.sort((a, b) => a.at - b.at);
  const lines = new LineIndex(source);
  const snippets = new Map<number, string>();
  const result: SymbolTag[] = [];
  for (const t of kept) {
    if (t.dropped) continue;
    const { line, column } = lines.position(t.at);
    let snippet = snippets.get(line);
    if (snippet === undefined) snippets.set(line, (snippet = lines.snippet(line)));
    const out: SymbolTag = { kind: t.kind, name: t.name, line, column, snippet };
    if (t.symbolKind) out.symbolKind = t.symbolKind;
    if (t.scope) out.scope = t.scope;
    if (t.receiver) out.receiver = t.receiver;
    result.push(out);
  }
  return result;
}
