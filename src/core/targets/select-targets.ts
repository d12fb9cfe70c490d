import { lockfileRefreshCommand } from '../engines/recipe/manifest-kind.js';
import { compileGlobs } from '../paths/glob.js';
import type { PathRules } from '../paths/path-rules.js';
import { recipeCandidates, recipeMatches } from '../engines/recipe/recipe-candidates.js';
import { recipeFor } from '../engines/recipe/registry.js';
import { ownersFor } from '../repomap/codeowners.js';
import { moduleForPath } from '../repomap/detect-modules.js';
import { FileContents } from '../repomap/file-contents.js';
import { ignoredDirOf, isBinaryByName } from '../paths/path-classes.js';
import type { RepoMap } from '../repomap/repo-map-schema.js';
import { createRiskClassifier } from '../risk/risk-rules.js';
import type { SymbolIndex } from '../repomap/symbol-index.js';
import type { TreeSyntaxService } from '../syntax/create-syntax-service.js';
import type { TaskContract } from '../task/task-contract.js';
import type { Workspace } from '../workspace/workspace.js';
import { filesContaining, keywordSearch, type KeywordHit } from './keyword-search.js';
import { findNamedPaths, namedDirectories } from './named-paths.js';
import { findRelations } from './target-relations.js';
import { findWordDefinitions, wordFileStems, wordSpellings } from './word-definitions.js';
import { taskWords } from '../task/search-terms.js';
import { analyseSymbols, splitSymbolTerm, type SymbolFinding } from './symbol-search.js';
import { TargetSelection, type FileClassification, type SelectedFile, type TargetEvidence, type TargetWarning } from './target-selection-schema.js';

/**
 * How a file was found, strongest first: named in the text or defining a named symbol; related
 * to such a file (its tests, its importers); referencing a named symbol; keyword only (no tier).
 */
type EvidenceTier = 'strong' | 'related' | 'reference';

interface Found {
  hits: KeywordHit[];
  evidence: TargetEvidence[];
  reasons: string[];
  score: number;
  symbol?: SymbolFinding;
  tier?: EvidenceTier;
}

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


function classify(path: string, map: RepoMap, rules: PathRules): FileClassification {
  const pathClass = rules.classify(path);
  if (pathClass === 'lockfile' || pathClass === 'generated' || pathClass === 'ci') return pathClass;
  if (map.manifests.some((m) => m.path === path)) return 'manifest';
  if (/(^|\/)(db\/migrations?|migrations|alembic\/versions)\//.test(path)) return 'migration';
  switch (pathClass) {
    case 'test':
    case 'docs':
    case 'config':
    case 'source':
      return pathClass;
    case 'history':
      return 'docs';
    case 'infra':
      return 'config';
    default:
      return 'other';
  }
}

/**
 * Target selection: explicit scope, policy filter, keyword search, symbol
 * search, module awareness, risk filter, ranking, and a report with evidence for every
 * selected file and a reason for every excluded one. Recipe steps select exactly the files the
 * recipe can change. Deterministic: sorted output, no clock.
 */
export async function selectTargets(input: SelectTargetsInput): Promise<TargetSelection> {
  const { workspace, task, map, rules } = input;
  const contents = input.contents ?? new FileContents(workspace);
  const warnings: TargetWarning[] = [];
  const excluded = new Map<string, string>();
  const risk = createRiskClassifier(rules);
  const all = workspace.paths();

  // 1. Explicit scope (task paths, narrowed by per-step paths when every step has them).
  const scopeGlobs = task.paths ?? [];
  const inTaskScope = scopeGlobs.length ? compileGlobs(scopeGlobs) : () => true;
  const stepGlobs = task.steps.length > 0 && task.steps.every((s) => s.paths) ? task.steps.flatMap((s) => s.paths!) : [];
  const inStepScope = stepGlobs.length ? compileGlobs(stepGlobs) : () => true;
  const inScope = (p: string): boolean => inTaskScope(p) && inStepScope(p);
  for (const glob of scopeGlobs) {
    const m = compileGlobs([glob]);
    const hits = all.filter((p) => m(p));
    if (hits.length === 0) warnings.push({ code: 'SCOPE_PATH_MISSING', message: `scope entry matches no file: ${glob}`, data: { glob } });
    const forbidden = hits.filter((p) => rules.isForbidden(p));
    if (forbidden.length > 0) {
      warnings.push({ code: 'FORBIDDEN_PATH_IN_SCOPE', message: `the scope names forbidden paths: ${glob}`, data: { glob, paths: forbidden.slice(0, 20) } });
      for (const p of forbidden) excluded.set(p, 'FORBIDDEN_PATH_IN_SCOPE: forbidden by policy');
    }
  }

  // 2. Policy filter and skip list: what is never searched.
  const candidates: string[] = [];
  for (const p of all) {
    if (!inScope(p)) continue;
    const entry = workspace.entry(p);
    if (!entry || entry.mode === '120000' || entry.mode === '160000') continue;
    if (ignoredDirOf(p) || isBinaryByName(p)) continue;
    if (rules.isForbidden(p)) {
      if (!excluded.has(p)) excluded.set(p, 'forbidden path');
      continue;
    }
    if (!rules.isAllowed(p)) continue;
    if (rules.isGenerated(p)) continue;
    candidates.push(p);
  }
  // Forbidden files are reported when they would have matched, so a reviewer sees what was left out.
  const forbiddenInScope = all.filter((p) => inScope(p) && rules.isForbidden(p) && !ignoredDirOf(p) && !isBinaryByName(p));

  const found = new Map<string, Found>();
  const note = (p: string): Found => {
    let f = found.get(p);
    if (!f) found.set(p, (f = { hits: [], evidence: [], reasons: [], score: 0 }));
    return f;
  };
  let strategy: string;
  let filesSearched = 0;
  let filesParsed = 0;
  const terms: string[] = [];

  if (task.steps.length > 0) {
    // Recipe steps: exactly the files each recipe can change.
    strategy = scopeGlobs.length ? 'explicit_scope_plus_recipe_candidates' : 'recipe_candidates';
    for (const step of task.steps) {
      const ownScope = step.paths ? compileGlobs(step.paths) : () => true;
      const recipe = recipeFor(step);
      terms.push(recipe.targetTerm(step));
      // The engine decides which files it could change and where, by applying the step in memory.
      for (const p of recipeCandidates(step, candidates.filter((c) => ownScope(c) && !rules.isLockfile(c)))) {
        const text = await contents.text(p);
        filesSearched++;
        if (text === undefined) continue;
        const matches = recipeMatches(step, { path: p, text }, { syntax: input.syntax });
        if (matches.length === 0) continue;
        const f = note(p);
        f.score = Math.max(f.score, 0.9);
        f.reasons.push(`${step.recipe} can change this file (${matches[0].detail})`);
        for (const m of matches.slice(0, 10)) f.evidence.push({ type: 'recipe', line: m.line, snippet: m.snippet, term: terms[terms.length - 1], detail: `${step.recipe}: ${m.detail}` });
      }
      const dependency = recipe.dependency(step);
      if (dependency !== undefined) {
        for (const p of all.filter((x) => rules.isLockfile(x) && inScope(x))) {
          const cmd = lockfileRefreshCommand(p, dependency) ?? 'the package manager';
          excluded.set(p, `lockfile: not edited; refresh with ${cmd}`);
          warnings.push({ code: 'LOCKFILE_NEEDS_REFRESH', message: `${p} must be refreshed with ${cmd}`, data: { path: p, command: cmd } });
        }
      }
    }
  } else {
    // 3. Keyword search, 4. symbol search.
    for (const t of task.searchTerms) {
      terms.push(t.term);
      if (t.kind === 'symbol') terms.push(...splitSymbolTerm(t.term).parts);
    }
    const uniqueTerms = [...new Set(terms)];
    const searchPaths = [...candidates, ...forbiddenInScope];
    const { hits, searched } = await keywordSearch(contents, searchPaths, uniqueTerms);
    filesSearched = searched;
    for (const [p, list] of hits) {
      if (excluded.has(p) || rules.isForbidden(p)) {
        excluded.set(p, excluded.get(p) ?? 'forbidden path');
        continue;
      }
      const f = note(p);
      f.hits = list;
      const exact = list.filter((h) => task.searchTerms.some((t) => t.term === h.term)).length;
      f.score += Math.min(0.15, 0.03 * list.length) + (exact > 0 ? 0.1 : 0);
      f.reasons.push(`${list.length} keyword occurrence${list.length === 1 ? '' : 's'} (${[...new Set(list.map((h) => h.term))].join(', ')})`);
      for (const h of list.slice(0, 10)) f.evidence.push({ type: 'keyword', line: h.line, snippet: h.snippet, term: h.term });
    }
    // A member segment split off `Type.member` is searched, but only the qualified form is resolved.
    const qualifiedMembers = new Set(task.searchTerms.filter((t) => t.kind === 'symbol').flatMap((t) => (splitSymbolTerm(t.term).parts.length > 1 && splitSymbolTerm(t.term).type ? [splitSymbolTerm(t.term).member] : [])));
    const symbolTerms = task.searchTerms.filter((t) => (t.kind === 'symbol' || t.kind === 'quoted-identifier') && !qualifiedMembers.has(t.term));
    if (symbolTerms.length > 0) {
      const analysis = await analyseSymbols(symbolTerms.map((t) => t.term), [...found.keys()].sort(), contents, input.symbols);
      filesParsed = analysis.filesParsed;
      for (const [p, finding] of analysis.findings) {
        const f = note(p);
        f.symbol = finding;
        f.score += finding.score;
        f.reasons.push(...finding.reasons);
        f.evidence.push(...finding.evidence);
        // A test that defines or calls the symbol shows how it is used; the fix is rarely there.
        if (!rules.isTest(p) && (finding.definesTarget || finding.reasons.some((r) => r.startsWith('exact method invocation')))) f.tier = 'strong';
        else if (finding.score > 0) f.tier = f.tier === 'strong' ? 'strong' : 'reference';
      }
      warnings.push({
        code: 'SYMBOL_RESOLUTION_PARTIAL',
        message: input.symbols ? 'symbol search is syntactic (tree-sitter tags); receivers are typed from declarations in the same file, the classpath is not resolved' : 'no syntax service: symbol search is textual (declarations and call shapes), not parsed',
      });
    }
    // Files named in the text, and plain words of the text that are names of definitions.
    const known = new Set(uniqueTerms.map((t) => t.toLowerCase()));
    const words = taskWords(task).filter((w) => !known.has(w.word));
    const symbolNames = [...new Set(symbolTerms.flatMap((t) => splitSymbolTerm(t.term).parts))];
    const pathFindings = findNamedPaths({ candidates, pathTerms: task.searchTerms.filter((t) => t.kind === 'path').map((t) => t.term), symbolNames, words: words.flatMap(wordFileStems), isTest: (p) => rules.isTest(p) });
    for (const hit of pathFindings) {
      const f = note(hit.path);
      f.score += hit.score;
      f.reasons.push(hit.reason);
      f.evidence.push(hit.evidence);
      if (hit.score >= 0.9) f.tier = 'strong';
      else f.tier ??= 'reference';
    }
    const filesWith = await filesContaining(contents, candidates, words.flatMap(wordSpellings));
    const wordDefs = await findWordDefinitions({ words, filesWith: (sp) => filesWith.get(sp) ?? [], contents, symbols: input.symbols, isTest: (p) => rules.isTest(p) });
    filesParsed += wordDefs.filesParsed;
    for (const d of wordDefs.findings) {
      const f = note(d.path);
      f.score += d.score;
      f.reasons.push(d.reason);
      f.evidence.push(d.evidence);
      // Only a word written as code is strong; a prose word that happens to name a definition is a hint.
      f.tier = d.strong ? 'strong' : (f.tier ?? 'reference');
      terms.push(d.evidence.term!);
    }
    if (wordDefs.tooCommon.length) warnings.push({ code: 'TASK_WORDS_TOO_COMMON', message: `words found in too many files to single out a definition: ${wordDefs.tooCommon.join(', ')}`, data: { words: wordDefs.tooCommon } });
    for (const [dir, name] of namedDirectories(candidates, [...symbolNames, ...words.flatMap(wordFileStems)])) {
      for (const [p, f] of found) {
        if (!p.startsWith(`${dir}/`) || f.reasons.some((r) => r.startsWith('inside directory'))) continue;
        f.score += 0.1;
        f.reasons.push(`inside directory ${dir} named in the task (${name})`);
      }
    }
    // 5a. The navigator's relations of the best-evidenced source files, as lower-ranked context.
    const anchors = [...found].filter(([p, f]) => f.tier === 'strong' && !rules.isTest(p)).sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1)).map(([p]) => p);
    const candidateSet = new Set(candidates);
    const relations = await findRelations({ anchors, scan: candidates, map, workspace, contents, rules, allowed: (p) => candidateSet.has(p) });
    for (const r of relations) {
      const f = note(r.path);
      f.score += r.score;
      f.reasons.push(r.reason);
      f.evidence.push(r.evidence);
      if (f.tier !== 'strong') f.tier = 'related';
    }
    const namedFiles = pathFindings.some((h) => h.score >= 0.9) ? '_plus_named_files' : '';
    const wordDefinitions = wordDefs.findings.length ? '_plus_word_definitions' : '';
    strategy = `${scopeGlobs.length ? 'explicit_scope_plus_' : ''}${symbolTerms.length ? 'keyword_plus_symbol_search' : task.searchTerms.length ? 'keyword_search' : 'map_hints'}${namedFiles}${wordDefinitions}`;
    if (task.searchTerms.length === 0 && task.kind === 'exploratory' && found.size === 0) {
      // Nothing to search for: start from the map's entrypoints and APIs.
      for (const h of map.navigationHints.filter((x) => (x.kind === 'entrypoint' || x.kind === 'api') && candidates.includes(x.path))) {
        const f = note(h.path);
        f.score = Math.max(f.score, h.confidence * 0.5);
        f.reasons.push(`map hint: ${h.reason}`);
        f.evidence.push({ type: 'scope', detail: `navigation hint ${h.kind} (${h.evidenceRefs.join(', ')})` });
      }
    }
  }

  // 5. Module awareness: modules that define a target symbol, and the modules depending on them.
  const definingModules = new Set<string>();
  for (const [p, f] of found) if (f.symbol?.definesTarget) definingModules.add(moduleForPath(map.modules, p)?.id ?? '');
  const relevantModules = new Set(definingModules);
  for (const m of map.modules) if (m.dependsOn.some((d) => definingModules.has(d))) relevantModules.add(m.id);

  // 6. Risk filter and 7. ranking.
  const scored: { file: SelectedFile; score: number; tier?: EvidenceTier }[] = [];
  for (const [p, f] of found) {
    const classification = classify(p, map, rules);
    const mod = moduleForPath(map.modules, p);
    const reasons = [...f.reasons];
    let score = f.score;
    if (scopeGlobs.length && inTaskScope(p)) {
      score += 0.1;
      reasons.push(`inside explicit scope: ${scopeGlobs.join(', ')}`);
    }
    if (classification === 'source') {
      score += 0.1;
      reasons.push('source file, not generated');
    } else if (classification === 'test') score += 0.05;
    else if (classification === 'docs') score -= 0.1;
    if (mod && relevantModules.has(mod.id)) {
      score += 0.05;
      reasons.push(`module ${mod.name ?? mod.id} defines or depends on the target`);
    }
    const owners = ownersFor(map.ownership.rules, p).owners;
    if (owners.length) {
      score += 0.01;
      reasons.push(`owned by ${owners.join(' ')}`);
    }
    const r = risk.classify(p);
    let allowedToEdit = rules.isAllowed(p) && !rules.isForbidden(p);
    if (rules.requiresApproval(p)) {
      allowedToEdit = false;
      reasons.push('requires approval by policy');
    }
    if (classification === 'generated' || classification === 'lockfile') {
      score -= 0.5;
      allowedToEdit = false;
      reasons.push(`${classification} file: not edited`);
    }
    if (r?.level === 'blocked') {
      allowedToEdit = false;
      reasons.push(`blocked: ${r.reason}`);
    } else if (r && r.level !== 'low') reasons.push(`risk ${r.level}: ${r.reason}`);
    scored.push({ file: { path: p, rank: 0, classification, allowedToEdit, module: mod?.id, reasons, evidence: f.evidence }, score, tier: f.tier });
  }
  // Sorted on the raw score: several strong signals may add up past 1, and their order still counts.
  // Strong evidence first whatever the counts: a test that calls a function and covers its file must not outrank the definition.
  const strongFirst = (s: { tier?: EvidenceTier }): number => (task.steps.length === 0 && s.tier === 'strong' ? 0 : 1);
  scored.sort((a, b) => strongFirst(a) - strongFirst(b) || b.score - a.score || (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  const top = Math.max(1, scored[0]?.score ?? 0);
  const selected = (task.steps.length > 0 ? scored : capWeakEvidence(scored, warnings)).map((s) => ({ ...s.file, rank: Math.round(Math.max(0, Math.min(1, s.score / top)) * 100) / 100 }));
  const maxSelected = input.maxSelected ?? 200;
  if (selected.length > maxSelected) warnings.push({ code: 'SEARCH_TRUNCATED', message: `${selected.length} files matched; the first ${maxSelected} are reported` });
  const selectedFiles = selected.slice(0, maxSelected);

  let status: TargetSelection['status'] = warnings.some((w) => w.code !== 'SYMBOL_RESOLUTION_PARTIAL') ? 'READY_WITH_WARNINGS' : warnings.length ? 'READY_WITH_WARNINGS' : 'READY';
  let reason: string | undefined;
  if (selectedFiles.length === 0) {
    warnings.push({ code: 'TARGET_SELECTION_EMPTY', message: 'no file matched the task' });
    if (task.kind === 'specific') {
      status = 'FAILED';
      reason = 'TARGET_SELECTION_EMPTY';
    } else status = 'READY_WITH_WARNINGS';
  }

  return TargetSelection.parse({
    schemaVersion: 1,
    baseCommitSha: workspace.baseCommitSha,
    strategy,
    status,
    reason,
    selectedFiles,
    excludedFiles: [...excluded].map(([path, why]) => ({ path, reason: why })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    warnings,
    searchTerms: [...new Set(terms)].sort(),
    stats: { filesConsidered: candidates.length, filesSearched, filesParsed },
  });
}

/** With a file named or a definition found, this many reference-only and keyword-only files are kept as context. */
export const MAX_REFERENCES_WITH_STRONG = 5;
export const MAX_KEYWORD_ONLY_WITH_STRONG = 3;
/** Without such evidence, keyword matches are all there is; still, a common word must not select the repository. */
export const MAX_KEYWORD_ONLY = 25;
/** Tests and importers of the strongest files kept as context (importers of a core type can be hundreds). */
export const MAX_RELATED = 4;

/**
 * Precision: files found only by a keyword or a reference are capped (best first), more tightly
 * when stronger evidence exists, and the cap is reported with what it left out.
 */
function capWeakEvidence<T extends { file: SelectedFile; tier?: EvidenceTier }>(sorted: T[], warnings: TargetWarning[]): T[] {
  const strong = sorted.some((s) => s.tier === 'strong');
  const limits = { related: MAX_RELATED, reference: strong ? MAX_REFERENCES_WITH_STRONG : Infinity, keyword: strong ? MAX_KEYWORD_ONLY_WITH_STRONG : MAX_KEYWORD_ONLY };
  const kept = { related: 0, reference: 0, keyword: 0 };
  const dropped = { related: 0, reference: 0, keyword: 0 };
  const out = sorted.filter((s) => {
    const kind = s.tier === 'strong' ? undefined : (s.tier ?? 'keyword');
    if (!kind) return true;
    if (kept[kind] < limits[kind]) return ++kept[kind] > 0;
    dropped[kind]++;
    return false;
  });
  if (dropped.related + dropped.reference + dropped.keyword > 0) {
    warnings.push({
      code: 'SELECTION_CAPPED',
      message: `${dropped.keyword} keyword-only, ${dropped.reference} reference-only and ${dropped.related} related file(s) left out: ${strong ? 'a file named in the task or defining a named symbol was found; the best matches are kept as context' : `only the ${MAX_KEYWORD_ONLY} best keyword matches are kept`}`,
      data: { keywordOnlyDropped: dropped.keyword, referenceOnlyDropped: dropped.reference, relatedDropped: dropped.related, strongEvidence: strong },
    });
  }
  return out;
}
