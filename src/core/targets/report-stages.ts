import { isDeclarationFile } from '../paths/path-classes.js';
import type { SearchTerm } from '../task/task-contract.js';
import { taskWords } from '../task/search-terms.js';
import { followCalls, type CallAnchor } from './call-steps.js';
import { changelogConvention, TOWNCRIER_CONFIGS } from './changelog-convention.js';
import { keywordSearch } from './keyword-search.js';
import { caseInsensitiveSpellings, findLiteralFiles, resolveFramePaths, type ReportFinding } from './report-evidence.js';
import { noteFound, type Found, type SelectionContext } from './selection-context.js';
import { analyseSymbols, splitSymbolTerm } from './symbol-search.js';

/** What a bug report quotes and traces, as stages of the search (`search-targets.ts` runs them in order). */

function noteReportFinding(ctx: SelectionContext, r: ReportFinding): void {
  const f = noteFound(ctx, r.path);
  f.score += r.score;
  f.reasons.push(r.reason);
  f.evidence.push(r.evidence);
  if (r.strong) f.tier = 'strong';
  else f.tier ??= 'reference';
}

/** Files in the report's stack-trace frames. */
export function frameStage(ctx: SelectionContext): void {
  const frames = ctx.task.searchTerms.filter((t) => t.kind === 'stack-frame').map((t) => t.term);
  if (frames.length === 0) return;
  for (const r of resolveFramePaths(frames, ctx.candidates, (p) => ctx.rules.isTest(p))) noteReportFinding(ctx, r);
}

/** Files holding the report's quoted literals verbatim (or, failing that, their fixed parts). */
export async function literalStage(ctx: SelectionContext): Promise<void> {
  const literals = ctx.task.searchTerms.filter((t) => t.kind === 'literal').map((t) => t.term);
  if (literals.length === 0) return;
  const holders = new Map<string, string[]>(literals.map((l) => [l, []]));
  for (const [p, f] of ctx.found) for (const h of f.hits) if (holders.has(h.term) && !holders.get(h.term)!.includes(p)) holders.get(h.term)!.push(p);
  const { findings, fragments } = await findLiteralFiles({
    literals,
    filesWith: (l) => holders.get(l) ?? [],
    contents: ctx.contents,
    candidates: ctx.candidates,
    isTest: (p) => ctx.rules.isTest(p),
  });
  ctx.terms.push(...fragments);
  for (const r of findings) noteReportFinding(ctx, r);
}

/**
 * Named symbols no file holds with the report's letter case are matched case-insensitively: the
 * code's spellings become symbol terms, so the symbol is not lost before ranking.
 */
export async function caseFallbackStage(ctx: SelectionContext, symbolTerms: readonly SearchTerm[]): Promise<SearchTerm[]> {
  const held = new Set<string>();
  for (const f of ctx.found.values()) for (const h of f.hits) held.add(h.term);
  const missing = symbolTerms.filter((t) => !held.has(t.term) && /^[A-Za-z_$][\w$]*$/.test(t.term)).map((t) => t.term);
  if (missing.length === 0) return [];
  const spellings = await caseInsensitiveSpellings(ctx.contents, ctx.candidates, missing);
  const added: SearchTerm[] = [];
  for (const [name, list] of spellings) for (const s of list) added.push({ term: s, kind: 'symbol', source: `case-insensitive match of ${name}` });
  if (added.length === 0) return [];
  const { hits } = await keywordSearch(
    ctx.contents,
    ctx.candidates,
    added.map((t) => t.term),
  );
  for (const [p, list] of hits) {
    const f = noteFound(ctx, p);
    f.hits.push(...list);
    f.score += Math.min(0.1, 0.02 * list.length);
    f.reasons.push(`${list.length} case-insensitive occurrence${list.length === 1 ? '' : 's'} (${[...new Set(list.map((h) => h.term))].join(', ')})`);
  }
  ctx.terms.push(...added.map((t) => t.term));
  return added;
}

/**
 * A qualified name whose qualifier nothing found defines (`AXIOS.getUri`, where `AXIOS` is a
 * variable of the report's snippet) says nothing of where its member lives: the member is
 * resolved as a bare name instead, so the file defining it counts as its definition rather than
 * as an unrelated same-named method. Returns the symbol terms to resolve.
 */
export async function unknownQualifierStage(ctx: SelectionContext, symbolTerms: readonly SearchTerm[]): Promise<SearchTerm[]> {
  const qualified = symbolTerms.filter((t) => {
    const { type, member } = splitSymbolTerm(t.term);
    return type !== undefined && member !== undefined;
  });
  if (qualified.length === 0) return [...symbolTerms];
  const types = [...new Set(qualified.map((t) => splitSymbolTerm(t.term).type!))];
  const { findings } = await analyseSymbols(types, [...ctx.found.keys()].sort(), ctx.contents, ctx.symbols);
  const defined = new Set([...findings.values()].flatMap((f) => f.reasons.filter((r) => r.startsWith('defines ')).map((r) => r.slice('defines '.length))));
  const known = new Set(symbolTerms.map((t) => t.term));
  const out: SearchTerm[] = [];
  for (const t of symbolTerms) {
    const { type, member } = splitSymbolTerm(t.term);
    if (type === undefined || member === undefined || defined.has(type)) out.push(t);
    else if (!known.has(member)) {
      known.add(member);
      out.push({ term: member, kind: 'symbol', source: `${t.term}: nothing here defines ${type}` });
    }
  }
  return out;
}

/** Distinct report terms a file holds (case-folded): what the cap keeps files by. */
export function coverageOf(f: Found | undefined): number {
  if (!f) return 0;
  const terms = new Set<string>();
  for (const h of f.hits) terms.add(h.term.toLowerCase());
  for (const e of f.evidence) if (e.term && e.type !== 'scope') terms.add(e.term.toLowerCase());
  return terms.size;
}

/** Each distinct term a file holds beyond the first adds this much, up to the bound: many terms outweigh one strong term repeated. */
const COVERAGE_STEP = 0.06;
const MAX_COVERAGE_BONUS = 0.3;

/** Coverage of distinct terms, added to every file found, so that ranking and the cap prefer files matching most of the report. */
export function coverageStage(ctx: SelectionContext): void {
  for (const f of ctx.found.values()) {
    const n = coverageOf(f);
    f.coverage = n;
    if (n > 1) {
      f.score += Math.min(MAX_COVERAGE_BONUS, COVERAGE_STEP * (n - 1));
      f.reasons.push(`holds ${n} distinct terms of the task`);
    }
  }
}

/** The report's terms and plain words, lower case, plain words cut to a stem (`merged` -> `merg`): what a callee's coverage counts. */
function reportNeedles(ctx: SelectionContext): string[] {
  const terms = reportTerms(ctx);
  const words = taskWords(ctx.task)
    .filter((w) => !w.parts)
    .map((w) => w.word.replace(/(?:ing|ed|es|s)$/, ''))
    .filter((w) => w.length >= 4);
  return [...new Set([...terms, ...words].map((t) => t.toLowerCase()).filter((t) => t.length >= 3))];
}

/** The report's terms (symbols, quoted names, paths), their qualified forms split into parts; not stack frames, not plain words. */
function reportTerms(ctx: SelectionContext): string[] {
  return ctx.task.searchTerms.filter((t) => t.kind !== 'stack-frame').flatMap((t) => t.term.split(/\.|::|#/));
}

/** How many of the needles a file holds, case-insensitively. */
async function reportCoverage(ctx: SelectionContext, path: string, needles: readonly string[]): Promise<number> {
  const text = (await ctx.contents.text(path))?.toLowerCase();
  return text === undefined ? 0 : needles.filter((n) => text.includes(n)).length;
}

/** Definitions of named symbols in source files: where the call steps start. */
function callAnchors(ctx: SelectionContext): CallAnchor[] {
  const out: CallAnchor[] = [];
  const ranked = [...ctx.found]
    // A declaration file declares without bodies: the calls are in the implementation.
    .filter(([p, f]) => f.tier === 'strong' && !ctx.rules.isTest(p) && !isDeclarationFile(p))
    .sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1));
  for (const [p, f] of ranked)
    for (const e of f.evidence)
      if (e.type === 'symbol' && e.detail === 'definition' && e.line !== undefined && e.term)
        out.push({ path: p, name: nameAt(e.snippet, e.term), line: e.line });
  return out;
}

/** The defined name on a definition's line: the last part of the term the line holds (`Type.member` -> `member` on its own line). */
function nameAt(snippet: string | undefined, term: string): string {
  const parts = term.split(/\.|::|#/);
  return [...parts].reverse().find((x) => snippet?.includes(x)) ?? parts[parts.length - 1];
}

/** From the named public API to what it calls, one or two steps, ranked by the report's terms each file holds. */
export async function callStage(ctx: SelectionContext): Promise<void> {
  if (!ctx.symbols) return;
  const anchors = callAnchors(ctx);
  if (anchors.length === 0) return;
  const needles = reportNeedles(ctx);
  const { findings, filesParsed } = await followCalls({
    anchors,
    candidates: ctx.candidates,
    contents: ctx.contents,
    symbols: ctx.symbols,
    coverageOf: (p) => reportCoverage(ctx, p, needles),
    terms: [...new Set(reportTerms(ctx).filter((t) => t.length >= 3))],
    isTest: (p) => ctx.rules.isTest(p),
  });
  ctx.filesParsed += filesParsed;
  for (const c of findings) {
    const f = noteFound(ctx, c.path);
    f.score += c.score;
    f.reasons.push(c.reason);
    f.evidence.push(c.evidence);
    if (f.tier !== 'strong') f.tier = 'callee';
  }
}

/**
 * The project's changelog convention. History files found by the search (a changelog that
 * mentions the symbol) never take the place of sources: they are left out, except the one
 * changelog file a project edits by hand.
 */
export async function changelogStage(ctx: SelectionContext): Promise<void> {
  const config = TOWNCRIER_CONFIGS.find((p) => ctx.workspace.entry(p));
  const text = config ? await ctx.contents.text(config) : undefined;
  const convention = changelogConvention(ctx.all, text && /\[tool\.towncrier\]|^\s*directory\s*=/m.test(text) ? text : undefined);
  ctx.changelog = convention;
  for (const p of [...ctx.found.keys()]) {
    if (!ctx.rules.isHistory(p) || (convention.kind === 'file' && convention.path === p)) continue;
    ctx.found.delete(p);
    ctx.excluded.set(
      p,
      convention.kind === 'fragments'
        ? `history file: the project adds a changelog fragment under ${convention.directory}/ instead`
        : 'history file: not a place for the fix',
    );
  }
  if (convention.kind === 'file' && ctx.candidates.includes(convention.path)) {
    const f = noteFound(ctx, convention.path);
    f.reasons.push("the project's changelog, edited by hand for each change");
    f.evidence.push({ type: 'scope', detail: 'changelog convention: file' });
    f.tier = 'changelog';
  }
}
