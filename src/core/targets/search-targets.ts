import { pathTokens, taskWords, type TaskWord } from '../task/search-terms.js';
import { isDeclarationFile } from '../paths/path-classes.js';
import type { SearchTerm } from '../task/task-contract.js';
import { filesContaining, keywordSearch, type KeywordHit } from './keyword-search.js';
import { findNamedPaths, directoriesNamedByPath, namedDirectories, type PathFinding } from './named-paths.js';
import { noteFound, type Found, type SelectionContext } from './selection-context.js';
import { analyseSymbols, DEFINITION_SCORE, splitSymbolTerm, type SymbolFinding } from './symbol-search.js';
import { findRelatedTests, findRelations, MAX_RELATION_ANCHORS } from './target-relations.js';
import { callStage, caseFallbackStage, changelogStage, coverageStage, frameStage, literalStage, unknownQualifierStage } from './report-stages.js';
import { findWordDefinitions, wordFileStems, wordSpellings, type WordDefinition } from './word-definitions.js';

/** The task's search terms, with the parts of each symbol (`Type.member` -> `Type`, `member`), each once; frames are paths, matched by name. */
function searchTermsOf(ctx: SelectionContext): string[] {
  for (const t of ctx.task.searchTerms) {
    if (t.kind === 'stack-frame') continue;
    ctx.terms.push(t.term);
    if (t.kind === 'symbol') ctx.terms.push(...splitSymbolTerm(t.term).parts);
  }
  return [...new Set(ctx.terms)];
}

function noteKeywordHits(ctx: SelectionContext, path: string, list: KeywordHit[]): void {
  const f = noteFound(ctx, path);
  f.hits = list;
  const exact = list.filter((h) => ctx.task.searchTerms.some((t) => t.term === h.term)).length;
  f.score += Math.min(0.15, 0.03 * list.length) + (exact > 0 ? 0.1 : 0);
  f.reasons.push(`${list.length} keyword occurrence${list.length === 1 ? '' : 's'} (${[...new Set(list.map((h) => h.term))].join(', ')})`);
  for (const h of list.slice(0, 10)) f.evidence.push({ type: 'keyword', line: h.line, snippet: h.snippet, term: h.term });
}

/** Keyword search over the candidates and the forbidden files in scope (a hit in one of those excludes it). */
async function keywordStage(ctx: SelectionContext, terms: string[]): Promise<void> {
  const { hits, searched } = await keywordSearch(ctx.contents, [...ctx.candidates, ...ctx.forbiddenInScope], terms);
  ctx.filesSearched = searched;
  for (const [p, list] of hits) {
    if (ctx.excluded.has(p) || ctx.rules.isForbidden(p)) {
      ctx.excluded.set(p, ctx.excluded.get(p) ?? 'forbidden path');
      continue;
    }
    noteKeywordHits(ctx, p, list);
  }
}

/** Symbol terms to resolve: a member segment split off `Type.member` is searched, but only the qualified form is resolved. */
function symbolTermsOf(searchTerms: readonly SearchTerm[]): SearchTerm[] {
  const qualifiedMembers = new Set(
    searchTerms
      .filter((t) => t.kind === 'symbol')
      .flatMap((t) => (splitSymbolTerm(t.term).parts.length > 1 && splitSymbolTerm(t.term).type ? [splitSymbolTerm(t.term).member] : [])),
  );
  return searchTerms.filter((t) => (t.kind === 'symbol' || t.kind === 'quoted-identifier') && !qualifiedMembers.has(t.term));
}

function noteSymbolFinding(ctx: SelectionContext, path: string, finding: SymbolFinding): void {
  const f = noteFound(ctx, path);
  f.symbol = finding;
  f.score += finding.score;
  f.reasons.push(...finding.reasons);
  f.evidence.push(...finding.evidence);
  // A test that defines the symbol shows how it is used, a file that calls it is a user: a fix starts at the
  // definition. A task that asks to move the uses to something else (a migration) changes the call sites.
  const invokes = finding.reasons.some((r) => r.startsWith('exact method invocation'));
  // An error type a report names is the symptom: where it is raised or caught is where a fix goes, not its class.
  const defined = finding.reasons.filter((r) => r.startsWith('defines ') && !r.startsWith('defines its own')).map((r) => r.slice('defines '.length));
  const errorTypeOnly = defined.length > 0 && defined.every((n) => ERROR_TYPE.test(n));
  if (errorTypeOnly) {
    f.score -= DEFINITION_SCORE / 2;
    f.reasons.push('the definitions are error types the report names: a symptom, not the place of the fix');
  } else if (defined.length > 0 && isDeclarationFile(path)) {
    // Still strong (a wrong type is fixed there), but below the code that does what the report describes.
    f.score -= (DEFINITION_SCORE / 2) * defined.length;
    f.reasons.push('a declaration file: it declares the named symbols, the code that runs them is elsewhere');
  }
  const migration = invokes && asksToChangeUses(ctx);
  if (migration) {
    f.score += DEFINITION_SCORE;
    f.reasons.push('the task moves the uses of the named symbol: a call site is what changes');
  }
  if (!ctx.rules.isTest(path) && ((finding.definesTarget && !errorTypeOnly) || migration)) f.tier = 'strong';
  else if (finding.score > 0) f.tier = f.tier === 'strong' ? 'strong' : 'reference';
}

const ERROR_TYPE = /(?:Error|Exception|Warning|Failure)$/;

/** "Migrate X to Y", "replace X with Y": the uses of the named symbol are what the task changes. */
function asksToChangeUses(ctx: SelectionContext): boolean {
  return /\b(?:migrate|replace|switch|port|move)\b[^\n]{0,200}?\b(?:to|with|by)\b/i.test(`${ctx.task.title}\n${ctx.task.objective.slice(0, 4096)}`);
}

/** Symbol search over the files the keyword search found. */
async function symbolStage(ctx: SelectionContext, symbolTerms: SearchTerm[]): Promise<void> {
  if (symbolTerms.length === 0) return;
  const analysis = await analyseSymbols(
    symbolTerms.map((t) => t.term),
    [...ctx.found.keys()].sort(),
    ctx.contents,
    ctx.symbols,
  );
  ctx.filesParsed = analysis.filesParsed;
  for (const [p, finding] of analysis.findings) noteSymbolFinding(ctx, p, finding);
  // Only where it is true: the classpath is a JVM notion, and a repository without such sources has none to resolve.
  if (ctx.symbols && ctx.candidates.some((p) => JVM_SOURCE.test(p)))
    ctx.warnings.push({
      code: 'SYMBOL_RESOLUTION_PARTIAL',
      message: 'symbol search is syntactic (tree-sitter tags); receivers are typed from declarations in the same file, the classpath is not resolved',
    });
  else if (!ctx.symbols)
    ctx.warnings.push({ code: 'SYMBOL_RESOLUTION_PARTIAL', message: 'no syntax service: symbol search is textual (declarations and call shapes), not parsed' });
}

const JVM_SOURCE = /\.(?:java|kt|kts|scala|groovy)$/;

/** Files named in the text (by path, by a symbol's name, by a word's file stem). */
function namedPathStage(ctx: SelectionContext, symbolNames: string[], words: TaskWord[]): PathFinding[] {
  const pathTerms = ctx.task.searchTerms.filter((t) => t.kind === 'path').map((t) => t.term);
  const pathFindings = findNamedPaths({
    candidates: ctx.candidates,
    pathTerms,
    symbolNames,
    words: words.flatMap(wordFileStems),
    isTest: (p) => ctx.rules.isTest(p),
  });
  for (const hit of pathFindings) {
    const f = noteFound(ctx, hit.path);
    f.score += hit.score;
    f.reasons.push(hit.reason);
    f.evidence.push(hit.evidence);
    if (hit.score >= 0.9) f.tier = 'strong';
    else f.tier ??= 'reference';
  }
  return pathFindings;
}

/** Plain words of the text that are names of definitions. */
async function wordStage(ctx: SelectionContext, words: TaskWord[]): Promise<WordDefinition[]> {
  const filesWith = await filesContaining(ctx.contents, ctx.candidates, words.flatMap(wordSpellings));
  const wordDefs = await findWordDefinitions({
    words,
    filesWith: (sp) => filesWith.get(sp) ?? [],
    contents: ctx.contents,
    symbols: ctx.symbols,
    isTest: (p) => ctx.rules.isTest(p),
  });
  ctx.filesParsed += wordDefs.filesParsed;
  for (const d of wordDefs.findings) {
    const f = noteFound(ctx, d.path);
    f.score += d.score;
    f.reasons.push(d.reason);
    f.evidence.push(d.evidence);
    // Only a word written as code is strong; a prose word that happens to name a definition is a hint.
    f.tier = d.strong ? 'strong' : (f.tier ?? 'reference');
    ctx.terms.push(d.evidence.term!);
  }
  if (wordDefs.tooCommon.length)
    ctx.warnings.push({
      code: 'TASK_WORDS_TOO_COMMON',
      message: `words found in too many files to single out a definition: ${wordDefs.tooCommon.join(', ')}`,
      data: { words: wordDefs.tooCommon },
    });
  return wordDefs.findings;
}

/** A directory the task names by its path counts as a term the files inside it hold. */
const DIRECTORY_PATH_SCORE = 0.25;

/**
 * Files already found inside a directory the task names score more (once): a little for a
 * directory named by a word, more for one named by its path (`internal/transport: ...`), whose
 * path then counts as a term of the task those files hold.
 */
function directoryStage(ctx: SelectionContext, names: string[]): void {
  const byPath = directoriesNamedByPath(ctx.candidates, pathTokens(`${ctx.task.title}\n${ctx.task.objective}`));
  for (const [dir, path] of byPath) {
    for (const [p, f] of ctx.found) {
      if (!p.startsWith(`${dir}/`) || f.reasons.some((r) => r.startsWith('inside directory'))) continue;
      f.score += DIRECTORY_PATH_SCORE;
      f.reasons.push(`inside directory ${dir}, which the task names by its path (${path})`);
      f.evidence.push({ type: 'keyword', term: path, detail: 'a directory the task names by its path' });
    }
  }
  for (const [dir, name] of namedDirectories(ctx.candidates, names)) {
    for (const [p, f] of ctx.found) {
      if (!p.startsWith(`${dir}/`) || f.reasons.some((r) => r.startsWith('inside directory'))) continue;
      f.score += 0.1;
      f.reasons.push(`inside directory ${dir} named in the task (${name})`);
    }
  }
}

/**
 * The navigator's relations of the best-evidenced files (tests and importers), as lower-ranked
 * context. When fewer files than that have strong evidence, the best-scored other source files
 * bring their test counterparts too, as new files only: a source found by its name or a word of
 * the task comes with its test, and nothing already found is lifted by it.
 */
async function relationStage(ctx: SelectionContext): Promise<void> {
  const byScore = (a: [string, Found], b: [string, Found]) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1);
  const found = [...ctx.found].filter(([p]) => !ctx.rules.isTest(p));
  // A declaration file's tests are the typings' tests: the code that runs is what a test should cover.
  const anchors = found
    .filter(([p, f]) => f.tier === 'strong' && !isDeclarationFile(p))
    .sort(byScore)
    .map(([p]) => p);
  const candidateSet = new Set(ctx.candidates);
  const { map, workspace, contents, rules } = ctx;
  const allowed = (p: string) => candidateSet.has(p);
  const relations = await findRelations({ anchors, scan: ctx.candidates, map, workspace, contents, rules, allowed });
  const others = found
    .filter(([p, f]) => f.tier !== 'strong' && f.tier !== 'changelog' && rules.classify(p) === 'source')
    .sort(byScore)
    .slice(0, Math.max(0, MAX_RELATION_ANCHORS - anchors.length))
    .map(([p]) => p);
  const counterparts = await findRelatedTests({ anchors: others, map, workspace, contents, rules, allowed: (p) => allowed(p) && !ctx.found.has(p) });
  // A counterpart ranks below the file that brought it: half its anchor's score at most.
  for (const r of counterparts) r.score = Math.min(r.score, Math.round(((ctx.found.get(r.anchor)?.score ?? 0) / 2) * 100) / 100);
  for (const r of [...relations, ...counterparts]) {
    const f = noteFound(ctx, r.path);
    f.score += r.score;
    f.reasons.push(r.reason);
    f.evidence.push(r.evidence);
    if (f.tier !== 'strong') f.tier = 'related';
    f.relation = Math.max(f.relation ?? 0, r.strength);
  }
}

/** Nothing to search for: start from the map's entrypoints and APIs. */
function mapHintStage(ctx: SelectionContext): void {
  for (const h of ctx.map.navigationHints.filter((x) => (x.kind === 'entrypoint' || x.kind === 'api') && ctx.candidates.includes(x.path))) {
    const f = noteFound(ctx, h.path);
    f.score = Math.max(f.score, h.confidence * 0.5);
    f.reasons.push(`map hint: ${h.reason}`);
    f.evidence.push({ type: 'scope', detail: `navigation hint ${h.kind} (${h.evidenceRefs.join(', ')})` });
  }
}

function strategyOf(ctx: SelectionContext, symbolTerms: SearchTerm[], pathFindings: PathFinding[], wordDefinitions: WordDefinition[]): string {
  const scope = ctx.scopeGlobs.length ? 'explicit_scope_plus_' : '';
  const search = symbolTerms.length ? 'keyword_plus_symbol_search' : ctx.task.searchTerms.length ? 'keyword_search' : 'map_hints';
  const named = pathFindings.some((h) => h.score >= 0.9) ? '_plus_named_files' : '';
  const words = wordDefinitions.length ? '_plus_word_definitions' : '';
  return `${scope}${search}${named}${words}`;
}

/**
 * A task without recipe steps: keyword search, symbol search, files and directories named in the
 * text, words naming definitions, then the relations of the strongest files. Returns the strategy's name.
 */
export async function findSearchTargets(ctx: SelectionContext): Promise<string> {
  const uniqueTerms = searchTermsOf(ctx);
  await keywordStage(ctx, uniqueTerms);
  frameStage(ctx);
  await literalStage(ctx);
  const namedSymbols = await unknownQualifierStage(ctx, symbolTermsOf(ctx.task.searchTerms));
  const symbolTerms = [...namedSymbols, ...(await caseFallbackStage(ctx, namedSymbols))];
  await symbolStage(ctx, symbolTerms);
  const known = new Set(uniqueTerms.map((t) => t.toLowerCase()));
  const words = taskWords(ctx.task).filter((w) => !known.has(w.word));
  const symbolNames = [...new Set(symbolTerms.flatMap((t) => splitSymbolTerm(t.term).parts))];
  const pathFindings = namedPathStage(ctx, symbolNames, words);
  const wordDefinitions = await wordStage(ctx, words);
  directoryStage(ctx, [...symbolNames, ...words.flatMap(wordFileStems)]);
  await callStage(ctx);
  await relationStage(ctx);
  await changelogStage(ctx);
  coverageStage(ctx);
  const strategy = strategyOf(ctx, symbolTerms, pathFindings, wordDefinitions);
  if (ctx.task.searchTerms.length === 0 && ctx.task.kind === 'exploratory' && ctx.found.size === 0) mapHintStage(ctx);
  return strategy;
}
