import { textTable } from '../text-table.js';
import { createNodeSyntaxService } from '../../src/app/local/node-grammar-loader.js';
import { defaultPathRules } from '../../src/core/paths/path-rules.js';
import { buildRepoMap } from '../../src/core/repomap/build-repo-map.js';
import { FileContents } from '../../src/core/repomap/file-contents.js';
import type { RepoMap } from '../../src/core/repomap/repo-map-schema.js';
import { SymbolIndex } from '../../src/core/repomap/symbol-index.js';
import type { TreeSyntaxService } from '../../src/core/syntax/create-syntax-service.js';
import { selectTargets } from '../../src/core/targets/select-targets.js';
import { parseTask } from '../../src/core/task/parse-task.js';
import type { Workspace } from '../../src/core/workspace/workspace.js';
import { createMemoryRepo } from '../../test/helpers/memory-repo.js';
import { generatedRepos } from './generated-repos.js';
import { mirrorCheckouts } from '../mirror-checkouts.js';
import { BUG_REPORTS } from './bug-reports.js';
import { scoreCase, type CaseRecall } from './recall.js';

/** The cut-off of the recall measure: the files a reader (or a model's opening context) looks at first. */
export const TOP_K = 5;

export interface TargetResult {
  set: 'generated';
  repo: string;
  id: string;
  text: string;
  expected: string;
  /** 1-based position of the expected file in the selection; 0 when not selected. */
  position: number;
  selected: number;
  /** Fraction of the selected files that are the expected one (one expected file per task). */
  precision: number;
  strategy: string;
  top: string[];
  /** Wall time of the selection alone (the map is built before), milliseconds. */
  selectMs: number;
}

export interface TargetTotals {
  tasks: number;
  recallAtK: number;
  recallAt1: number;
  precision: number;
  meanSelected: number;
}

const rules = defaultPathRules();

/** Selects targets for one task text exactly as a run does: task parsing, map, symbols, selection. */
export async function evaluateTask(input: {
  workspace: Workspace;
  map: RepoMap;
  syntax: TreeSyntaxService;
  contents: FileContents;
  text: string;
  expected: string;
}): Promise<Omit<TargetResult, 'set' | 'repo' | 'id'>> {
  const task = parseTask({ title: input.text, body: '', source: 'github' });
  const started = performance.now();
  const sel = await selectTargets({
    workspace: input.workspace,
    task,
    map: input.map,
    rules,
    syntax: input.syntax,
    contents: input.contents,
    symbols: new SymbolIndex(input.syntax, input.contents),
  });
  const selectMs = Math.round(performance.now() - started);
  const paths = sel.selectedFiles.map((f) => f.path);
  const position = paths.indexOf(input.expected) + 1;
  return {
    text: input.text,
    expected: input.expected,
    position,
    selected: paths.length,
    precision: position > 0 ? 1 / paths.length : 0,
    strategy: sel.strategy,
    top: paths.slice(0, TOP_K),
    selectMs,
  };
}

export async function runGenerated(syntax: TreeSyntaxService): Promise<TargetResult[]> {
  const out: TargetResult[] = [];
  for (const repo of generatedRepos()) {
    const memory = await createMemoryRepo(repo.files);
    const contents = new FileContents(memory.workspace);
    const map = await buildRepoMap({ workspace: memory.workspace, owner: 'eval', repo: repo.name, rules, policyDigest: 'eval', contents });
    for (const t of repo.tasks)
      out.push({
        set: 'generated',
        repo: repo.name,
        id: t.id,
        ...(await evaluateTask({ workspace: memory.workspace, map, syntax, contents, text: t.text, expected: t.expected })),
      });
  }
  return out;
}

/**
 * Every bug report whose mirror is present, selected for exactly as a run selects for an issue
 * (title and body parsed as the task, the default path rules, symbols from tree-sitter), scored
 * against the files its fix changed. Map building is outside the timed part.
 */
export async function runBugReports(
  syntax: TreeSyntaxService,
  mirrors: string,
  options: { only?: readonly string[]; log?: (line: string) => void } = {},
): Promise<{ scores: CaseRecall[]; skipped: string[]; addedByFix: string[] }> {
  const checkouts = mirrorCheckouts(mirrors, rules, options.log);
  const scores: CaseRecall[] = [];
  const skipped: string[] = [];
  const addedByFix: string[] = [];
  for (const c of BUG_REPORTS.filter((b) => !options.only?.length || options.only.includes(b.id))) {
    const checkout = await checkouts.at(c.repo, c.commit);
    if (!checkout) {
      skipped.push(c.id);
      continue;
    }
    const { workspace, map, contents } = checkout;
    const task = parseTask({ title: c.text.title, body: c.text.from === 'issue' ? c.text.body : '', source: 'github' });
    const started = performance.now();
    const sel = await selectTargets({ workspace, task, map, rules, syntax, contents, symbols: new SymbolIndex(syntax, contents) });
    const selectMs = Math.round(performance.now() - started);
    // A file the fix created is not in the repository it selects from: it is reported apart, not
    // counted as missed (a new test is written next to the counterpart the selection holds).
    const absent = c.expectedFiles.filter((f) => !workspace.entry(f.path));
    addedByFix.push(...absent.map((f) => `${c.id}: ${f.role} ${f.path}`));
    const score = scoreCase(
      { ...c, expectedFiles: c.expectedFiles.filter((f) => !absent.includes(f)) },
      {
        selected: sel.selectedFiles.map((f) => f.path),
        capped: sel.warnings.some((w) => w.code === 'SELECTION_CAPPED' || w.code === 'SEARCH_TRUNCATED'),
        excluded: new Map(sel.excludedFiles.map((f) => [f.path, f.reason])),
        selectMs,
        repoFiles: workspace.paths().length,
      },
    );
    scores.push(score);
    options.log?.(`${c.id}: first source ${score.firstSource || '-'}, ${sel.selectedFiles.length} selected, ${selectMs} ms`);
    // Cases named one by one: the whole working set, to see why a file ranked where it did.
    if (options.only?.length) for (const f of sel.selectedFiles) options.log?.(`  ${f.rank}. ${f.path} (${f.classification}): ${f.reasons[0] ?? ''}`);
  }
  return { scores, skipped, addedByFix };
}

export function totalsOf(results: readonly TargetResult[]): TargetTotals {
  const n = results.length || 1;
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    tasks: results.length,
    recallAtK: round(results.filter((r) => r.position > 0 && r.position <= TOP_K).length / n),
    recallAt1: round(results.filter((r) => r.position === 1).length / n),
    precision: round(results.reduce((s, r) => s + r.precision, 0) / n),
    meanSelected: round(results.reduce((s, r) => s + r.selected, 0) / n),
  };
}

export function formatTable(results: readonly TargetResult[]): string {
  const rows = results.map((r) => [
    r.set,
    r.id,
    r.position ? String(r.position) : '-',
    r.position > 0 && r.position <= TOP_K ? 'yes' : 'no',
    String(r.selected),
    r.precision.toFixed(2),
    String(r.selectMs),
    r.expected,
  ]);
  const head = ['set', 'task', 'pos', `top${TOP_K}`, 'selected', 'precision', 'ms', 'expected file'];
  return textTable(head, rows);
}

export function formatTotals(label: string, t: TargetTotals): string {
  return `${label}: ${t.tasks} tasks, recall@${TOP_K} ${t.recallAtK.toFixed(3)}, recall@1 ${t.recallAt1.toFixed(3)}, precision ${t.precision.toFixed(3)}, mean selected ${t.meanSelected.toFixed(1)}`;
}

export { createNodeSyntaxService };
