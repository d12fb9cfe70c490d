import type { PathRules } from '../paths/path-rules.js';
import { FileContents } from '../repomap/file-contents.js';
import type { RepoMap } from '../repomap/repo-map-schema.js';
import type { SymbolIndex } from '../repomap/symbol-index.js';
import type { TreeSyntaxService } from '../syntax/create-syntax-service.js';
import type { TaskContract } from '../task/task-contract.js';
import type { Workspace } from '../workspace/workspace.js';
import { scoreFound, type ScoredFile } from './rank-targets.js';
import { findRecipeTargets } from './recipe-targets.js';
import { findSearchTargets } from './search-targets.js';
import type { EvidenceTier, SelectionContext } from './selection-context.js';
import { selectionScope } from './selection-scope.js';
import { TargetSelection, type SelectedFile, type TargetWarning } from './target-selection-schema.js';

export interface SelectTargetsInput {
  workspace: Workspace;
  task: TaskContract;
  map: RepoMap;
  rules: PathRules;
  /** Shared with the map build so nothing is read twice. */
  contents?: FileContents;
  /** The parser the recipe engine uses to find where a recipe step would change a file. */
  syntax: TreeSyntaxService;
  /** Tree-sitter symbols; without it symbol search is textual and says so. */
  symbols?: SymbolIndex;
  /** At most this many files are reported as selected. */
  maxSelected?: number;
}

/** The selection's context before any stage ran: its inputs, its scope and the policy filter. */
function selectionContext(input: SelectTargetsInput): SelectionContext {
  const { workspace, task, map, rules } = input;
  const warnings: TargetWarning[] = [];
  const excluded = new Map<string, string>();
  const all = workspace.paths();
  const scope = selectionScope({ task, workspace, rules, all, warnings, excluded });
  const contents = input.contents ?? new FileContents(workspace);
  return {
    ...scope,
    workspace,
    task,
    map,
    rules,
    contents,
    syntax: input.syntax,
    symbols: input.symbols,
    all,
    warnings,
    excluded,
    leftAlone: [],
    found: new Map(),
    terms: [],
    filesSearched: 0,
    filesParsed: 0,
  };
}

/** Evidence first, then score: definitions, frames, quoted messages and named files; then what relates to them; the changelog last. */
const TIER_ORDER: Record<EvidenceTier | 'keyword', number> = { strong: 0, related: 1, callee: 1, reference: 1, keyword: 1, changelog: 2 };

/**
 * Ranking: sorted on the raw score (several strong signals may add up past 1, and their order
 * still counts), strong evidence first whatever the counts (a test that calls a function and
 * covers its file must not outrank the definition); generated files and lockfiles after every
 * other file; weak evidence capped without recipe steps, the files it drops listed with their
 * rank; ranks relative to the best score.
 */
function rankScored(
  scored: ScoredFile[],
  recipes: boolean,
  warnings: TargetWarning[],
  excluded: Map<string, { reason: string; rank?: number }>,
): SelectedFile[] {
  const order = (s: ScoredFile): number =>
    (s.file.classification === 'generated' || s.file.classification === 'lockfile' ? 10 : 0) + (recipes ? 0 : TIER_ORDER[s.tier ?? 'keyword']);
  scored.sort((a, b) => order(a) - order(b) || b.score - a.score || (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  const top = Math.max(1, scored[0]?.score ?? 0);
  // Ranks follow the order: a file placed below another never shows a higher rank.
  let floor = 1;
  const ranked = scored.map((s) => {
    floor = Math.min(floor, Math.round(Math.max(0, Math.min(1, s.score / top)) * 100) / 100);
    return { ...s, file: { ...s.file, rank: floor } };
  });
  return (recipes ? ranked : capWeakEvidence(ranked, warnings, excluded)).map((s) => s.file);
}

/** READY without warnings; an empty selection fails a specific task. */
function outcome(
  selectedCount: number,
  task: TaskContract,
  warnings: TargetWarning[],
  leftAlone: readonly string[],
): { status: TargetSelection['status']; reason?: string } {
  if (selectedCount > 0) return { status: warnings.length ? 'READY_WITH_WARNINGS' : 'READY' };
  const why = leftAlone.length > 0 ? `; ${leftAlone[0]}${leftAlone.length > 1 ? ` (and ${leftAlone.length - 1} more)` : ''}` : '';
  warnings.push({ code: 'TARGET_SELECTION_EMPTY', message: `no file matched the task${why}` });
  return task.kind === 'specific' ? { status: 'FAILED', reason: 'TARGET_SELECTION_EMPTY' } : { status: 'READY_WITH_WARNINGS' };
}

/**
 * Target selection: explicit scope, policy filter, keyword search, symbol
 * search, module awareness, risk filter, ranking, and a report with evidence for every
 * selected file and a reason for every excluded one. Recipe steps select exactly the files the
 * recipe can change. Deterministic: sorted output, no clock.
 */
export async function selectTargets(input: SelectTargetsInput): Promise<TargetSelection> {
  const ctx = selectionContext(input);
  const { task, warnings } = ctx;
  const recipes = task.steps.length > 0;
  const strategy = recipes ? await findRecipeTargets(ctx) : await findSearchTargets(ctx);
  const capped = new Map<string, { reason: string; rank?: number }>();
  const selected = rankScored(scoreFound(ctx), recipes, warnings, capped);
  const maxSelected = input.maxSelected ?? 200;
  if (selected.length > maxSelected)
    warnings.push({ code: 'SEARCH_TRUNCATED', message: `${selected.length} files matched; the first ${maxSelected} are reported` });
  const selectedFiles = selected.slice(0, maxSelected);
  const { status, reason } = outcome(selectedFiles.length, task, warnings, ctx.leftAlone);
  return TargetSelection.parse({
    schemaVersion: 1,
    baseCommitSha: ctx.workspace.baseCommitSha,
    strategy,
    status,
    reason,
    selectedFiles,
    excludedFiles: excludedFiles(ctx.excluded, capped),
    warnings,
    searchTerms: [...new Set(ctx.terms)].sort(),
    ...(ctx.changelog ? { changelog: ctx.changelog } : {}),
    stats: { filesConsidered: ctx.candidates.length, filesSearched: ctx.filesSearched, filesParsed: ctx.filesParsed },
  });
}

/** Files left out by policy (by path) and by the cap (best first, with their rank). */
function excludedFiles(excluded: Map<string, string>, capped: Map<string, { reason: string; rank?: number }>): TargetSelection['excludedFiles'] {
  const byPath = [...excluded].map(([path, reason]) => ({ path, reason })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return [...byPath, ...[...capped].map(([path, c]) => ({ path, ...c }))];
}

/** With a file named or a definition found, this many reference-only and keyword-only files are kept as context. */
export const MAX_REFERENCES_WITH_STRONG = 5;
export const MAX_KEYWORD_ONLY_WITH_STRONG = 3;
/** Without such evidence, keyword matches are all there is; still, a common word must not select the repository. */
export const MAX_KEYWORD_ONLY = 25;
/** Importers of the strongest files kept as context (importers of a core type can be hundreds). */
export const MAX_RELATED = 6;
/** Tests of the strongest files kept, apart from importers so that neither crowds out the other. */
export const MAX_RELATED_TESTS = 4;
/** Files reached from a named definition through its calls. */
export const MAX_CALLEES = 4;
/** Tests holding several distinct terms of the task (where the reported behaviour is exercised), kept apart from the other caps. */
export const MAX_TERM_TESTS = 2;
const TERM_TEST_COVERAGE = 2;

type CapKind = 'relatedTest' | 'related' | 'callee' | 'reference' | 'keyword';
const KIND_NAMES: Record<CapKind, string> = {
  relatedTest: 'test a better-ranked file',
  related: 'import a better-ranked file',
  callee: 'are called from a named definition',
  reference: 'use a named symbol',
  keyword: 'hold words of the task',
};

/**
 * Precision: files found only by a keyword, a reference, a call or a relation are capped, more
 * tightly when stronger evidence exists; a cap keeps the files holding the most distinct terms of
 * the task, the better ranked among equals, and the kept files stay in rank order. Each file the cap drops is listed with its rank and why; the
 * warning says it for a reviewer.
 */
export function capWeakEvidence<T extends { file: SelectedFile; tier?: EvidenceTier; coverage?: number; relation?: number }>(
  sorted: T[],
  warnings: TargetWarning[],
  excluded: Map<string, { reason: string; rank?: number }>,
): T[] {
  const strong = sorted.some((s) => s.tier === 'strong');
  const limits: Record<CapKind, number> = {
    relatedTest: MAX_RELATED_TESTS,
    related: MAX_RELATED,
    callee: MAX_CALLEES,
    reference: strong ? MAX_REFERENCES_WITH_STRONG : Infinity,
    keyword: strong ? MAX_KEYWORD_ONLY_WITH_STRONG : MAX_KEYWORD_ONLY,
  };
  const kindOf = (s: T): CapKind | undefined => {
    if (s.tier === 'strong' || s.tier === 'changelog') return undefined;
    if (s.tier === 'related' && s.file.classification === 'test') return 'relatedTest';
    return s.tier ?? 'keyword';
  };
  // A test that holds several distinct terms of the task and would be capped with its kind gets one of its own places.
  const termTest = (s: T) => s.file.classification === 'test' && (s.coverage ?? 0) >= TERM_TEST_COVERAGE;
  // Within a kind, the files kept are the most strongly related (tests and importers), then those
  // holding the most distinct terms of the task, then the best ranked.
  const keep = new Set<T>();
  const byCoverage = sorted
    .map((s, i) => ({ s, i }))
    .sort((a, b) => (b.s.relation ?? 0) - (a.s.relation ?? 0) || (b.s.coverage ?? 0) - (a.s.coverage ?? 0) || a.i - b.i);
  // Tests and sources found by the same kind of evidence are capped apart, tests with half the
  // places: a test holding a snippet's boilerplate never takes a source's place.
  const slots = new Map<string, number>();
  for (const { s } of byCoverage) {
    const kind = kindOf(s);
    if (!kind) continue;
    const test = s.file.classification === 'test';
    const slot = `${kind}:${test}`;
    const n = slots.get(slot) ?? 0;
    if (n < (test && kind !== 'relatedTest' ? Math.ceil(limits[kind] / 2) : limits[kind])) (slots.set(slot, n + 1), keep.add(s));
  }
  const termTests = byCoverage
    .filter(({ s }) => kindOf(s) && !keep.has(s) && termTest(s))
    .sort((a, b) => (b.s.coverage ?? 0) - (a.s.coverage ?? 0) || a.i - b.i)
    .slice(0, MAX_TERM_TESTS);
  for (const { s } of termTests) keep.add(s);
  const dropped: Record<CapKind, number> = { relatedTest: 0, related: 0, callee: 0, reference: 0, keyword: 0 };
  const out = sorted.filter((s) => {
    const kind = kindOf(s);
    if (!kind || keep.has(s)) return true;
    dropped[kind]++;
    excluded.set(s.file.path, {
      reason: `left out by the cap on files that ${KIND_NAMES[kind]} (${limits[kind]} kept, ranked above it)${s.file.reasons[0] ? `; found because: ${s.file.reasons[0]}` : ''}`,
      rank: s.file.rank,
    });
    return false;
  });
  if (excluded.size > 0) {
    warnings.push({
      code: 'SELECTION_CAPPED',
      message: `${excluded.size} more file(s) matched the task less well and were left out of the working set (listed with their rank in the target selection)`,
      data: {
        keywordOnlyDropped: dropped.keyword,
        referenceOnlyDropped: dropped.reference,
        relatedDropped: dropped.related + dropped.relatedTest,
        calleeDropped: dropped.callee,
        strongEvidence: strong,
      },
    });
  }
  return out;
}
