import { textTable } from '../text-table.js';
import type { BugReportCase } from './bug-reports.js';

/**
 * Scores a target selection against the files the maintainers' fix changed: which source and
 * test files it holds, where the first needed source file ranks, whether the cap dropped files,
 * and how long the selection took. Recall counts files (over all cases of a row), the top-five
 * share counts cases. No mirror, no I/O: the eval's runner feeds it, unit tests feed it directly.
 */
export const FIRST_K = 5;
export const SOURCE_RECALL_GOAL = 0.9;
export const FIRST_IN_TOP_GOAL = 0.8;
export const TEST_RECALL_GOAL = 0.7;
/** A repository with fewer files than this is small in the table. */
export const SMALL_REPO_FILES = 1000;

/** What a selection gave for one case: its files best first, whether a cap dropped matches, why files were excluded. */
export interface SelectionOutcome {
  selected: readonly string[];
  capped: boolean;
  excluded: ReadonlyMap<string, string>;
  selectMs: number;
  /** Files in the repository at the case's commit. */
  repoFiles: number;
}

export interface MissedFile {
  path: string;
  role: 'source' | 'test';
  /** The selection's exclusion reason when it gave one; otherwise the file was never selected. */
  why: string;
}

export interface CaseRecall {
  id: string;
  repo: string;
  language: string;
  textFrom: BugReportCase['text']['from'];
  heldOut: boolean;
  repoFiles: number;
  source: { expected: number; found: number };
  test: { expected: number; found: number };
  /** 1-based rank of the best-ranked needed source file; 0 when none was selected. */
  firstSource: number;
  selected: number;
  capped: boolean;
  selectMs: number;
  missed: MissedFile[];
}

export interface RecallTally {
  cases: number;
  sourceExpected: number;
  sourceFound: number;
  /** Needed source files selected over needed source files. */
  sourceRecall: number;
  /** Cases whose first needed source file ranks in the top FIRST_K, over cases with a source file. */
  firstInTop: number;
  firstInTopRate: number;
  firstAtOne: number;
  testExpected: number;
  testFound: number;
  /** Changed test files selected over changed test files; 1 when no case changed one. */
  testRecall: number;
  capped: number;
  meanSelected: number;
  medianMs: number;
  maxMs: number;
}

export function scoreCase(c: BugReportCase, outcome: SelectionOutcome): CaseRecall {
  const rank = new Map(outcome.selected.map((path, i) => [path, i + 1]));
  const of = (role: 'source' | 'test') => c.expectedFiles.filter((f) => f.role === role).map((f) => f.path);
  const sources = of('source');
  const tests = of('test');
  const ranks = sources.map((p) => rank.get(p) ?? 0).filter((r) => r > 0);
  const missed: MissedFile[] = [
    ...sources.filter((p) => !rank.has(p)).map((path) => ({ path, role: 'source' as const })),
    ...tests.filter((p) => !rank.has(p)).map((path) => ({ path, role: 'test' as const })),
  ].map((m) => ({ ...m, why: outcome.excluded.get(m.path) ?? 'not selected' }));
  return {
    id: c.id,
    repo: c.repo,
    language: c.language,
    textFrom: c.text.from,
    heldOut: c.heldOut === true,
    repoFiles: outcome.repoFiles,
    source: { expected: sources.length, found: sources.length - missed.filter((m) => m.role === 'source').length },
    test: { expected: tests.length, found: tests.length - missed.filter((m) => m.role === 'test').length },
    firstSource: ranks.length ? Math.min(...ranks) : 0,
    selected: outcome.selected.length,
    capped: outcome.capped,
    selectMs: outcome.selectMs,
    missed,
  };
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

export function tallyRecall(scores: readonly CaseRecall[]): RecallTally {
  const sum = (f: (s: CaseRecall) => number): number => scores.reduce((n, s) => n + f(s), 0);
  const withSource = scores.filter((s) => s.source.expected > 0);
  const firstInTop = withSource.filter((s) => s.firstSource > 0 && s.firstSource <= FIRST_K).length;
  const ms = scores.map((s) => s.selectMs).sort((a, b) => a - b);
  const sourceExpected = sum((s) => s.source.expected);
  const testExpected = sum((s) => s.test.expected);
  return {
    cases: scores.length,
    sourceExpected,
    sourceFound: sum((s) => s.source.found),
    sourceRecall: round(sourceExpected ? sum((s) => s.source.found) / sourceExpected : 1),
    firstInTop,
    firstInTopRate: round(withSource.length ? firstInTop / withSource.length : 1),
    firstAtOne: withSource.filter((s) => s.firstSource === 1).length,
    testExpected,
    testFound: sum((s) => s.test.found),
    testRecall: round(testExpected ? sum((s) => s.test.found) / testExpected : 1),
    capped: scores.filter((s) => s.capped).length,
    meanSelected: round(scores.length ? sum((s) => s.selected) / scores.length : 0),
    medianMs: ms.length ? ms[Math.floor(ms.length / 2)] : 0,
    maxMs: ms.length ? ms[ms.length - 1] : 0,
  };
}

export interface RecallReport {
  /** Bug reports with their own text, by language. */
  byLanguage: Record<string, RecallTally>;
  bySize: { small: RecallTally; large: RecallTally };
  heldOut: RecallTally;
  /** The older cases whose text is a fix commit's subject. */
  commitSubjects: RecallTally;
  /** Every bug report with its own text (held-out ones included). */
  total: RecallTally;
}

export function recallReport(scores: readonly CaseRecall[]): RecallReport {
  const reports = scores.filter((s) => s.textFrom === 'issue');
  const languages = [...new Set(reports.map((s) => s.language))].sort();
  return {
    byLanguage: Object.fromEntries(languages.map((l) => [l, tallyRecall(reports.filter((s) => s.language === l))])),
    bySize: {
      small: tallyRecall(reports.filter((s) => s.repoFiles < SMALL_REPO_FILES)),
      large: tallyRecall(reports.filter((s) => s.repoFiles >= SMALL_REPO_FILES)),
    },
    heldOut: tallyRecall(reports.filter((s) => s.heldOut)),
    commitSubjects: tallyRecall(scores.filter((s) => s.textFrom === 'commit subject')),
    total: tallyRecall(reports),
  };
}

export function meetsRecallGoals(t: RecallTally): boolean {
  return t.sourceRecall >= SOURCE_RECALL_GOAL && t.firstInTopRate >= FIRST_IN_TOP_GOAL && t.testRecall >= TEST_RECALL_GOAL;
}

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;

/** The per-language, per-size, held-out, commit-subject and total rows, then the goals. */
export function formatRecallReport(report: RecallReport): string {
  const head = ['group', 'cases', 'source recall', `first in top ${FIRST_K}`, 'first at 1', 'test recall', 'cap hit', 'mean selected', 'median ms', 'max ms'];
  const row = (label: string, t: RecallTally): string[] => [
    label,
    String(t.cases),
    `${pct(t.sourceRecall)} (${t.sourceFound}/${t.sourceExpected})`,
    `${pct(t.firstInTopRate)} (${t.firstInTop})`,
    String(t.firstAtOne),
    `${pct(t.testRecall)} (${t.testFound}/${t.testExpected})`,
    String(t.capped),
    t.meanSelected.toFixed(1),
    String(t.medianMs),
    String(t.maxMs),
  ];
  const rows = [
    ...Object.entries(report.byLanguage).map(([l, t]) => row(`language ${l}`, t)),
    row(`repository < ${SMALL_REPO_FILES} files`, report.bySize.small),
    row(`repository >= ${SMALL_REPO_FILES} files`, report.bySize.large),
    row('held out', report.heldOut),
    row('total (bug reports)', report.total),
    row('commit subjects', report.commitSubjects),
  ];
  const goals = `goals on the bug reports (source recall >= ${pct(SOURCE_RECALL_GOAL)}, first needed file in the top ${FIRST_K} >= ${pct(FIRST_IN_TOP_GOAL)}, test recall >= ${pct(TEST_RECALL_GOAL)}): ${meetsRecallGoals(report.total) ? 'met' : 'not met'}`;
  return `${textTable(head, rows, (i) => i > 0)}\n\n${goals}\n`;
}

/** One line per case: ranks, counts and time; with `verbose`, each missed file and why. */
export function formatCaseLines(scores: readonly CaseRecall[], verbose: boolean): string {
  const head = ['case', 'text', 'files', 'first', 'source', 'test', 'selected', 'cap', 'ms'];
  const rows = scores.map((s) => [
    `${s.id}${s.heldOut ? ' (held out)' : ''}`,
    s.textFrom === 'issue' ? 'issue' : 'subject',
    String(s.repoFiles),
    s.firstSource ? String(s.firstSource) : '-',
    `${s.source.found}/${s.source.expected}`,
    `${s.test.found}/${s.test.expected}`,
    String(s.selected),
    s.capped ? 'yes' : 'no',
    String(s.selectMs),
  ]);
  const missed = verbose ? scores.flatMap((s) => s.missed.map((m) => `  missed ${s.id}: ${m.role} ${m.path} (${m.why})`)) : [];
  return [textTable(head, rows, (i) => i >= 2), ...missed].join('\n') + '\n';
}
