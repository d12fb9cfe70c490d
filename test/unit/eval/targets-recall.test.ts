import { describe, expect, it } from 'vitest';
import { BUG_REPORTS, type BugReportCase } from '../../../eval/targets/bug-reports.js';
import {
  FIRST_K,
  formatCaseLines,
  formatRecallReport,
  meetsRecallGoals,
  recallReport,
  scoreCase,
  SMALL_REPO_FILES,
  tallyRecall,
  type SelectionOutcome,
} from '../../../eval/targets/recall.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

const mk = (over: Partial<BugReportCase> & Pick<BugReportCase, 'id'>): BugReportCase => ({
  language: 'go',
  repo: 'o/r',
  commit: '0'.repeat(40),
  fix: '1'.repeat(40),
  text: { from: 'issue', url: 'https://github.com/o/r/issues/1', title: 't', body: 'b' },
  expectedFiles: [
    { path: 'a.go', role: 'source' },
    { path: 'b.go', role: 'source' },
    { path: 'a_test.go', role: 'test' },
    { path: 'CHANGES.md', role: 'other' },
  ],
  ...over,
});

const outcome = (selected: string[], over: Partial<SelectionOutcome> = {}): SelectionOutcome => ({
  selected,
  capped: false,
  excluded: new Map(),
  selectMs: 10,
  repoFiles: 100,
  ...over,
});

describe('eval:targets: scoring a selection against the files a fix changed', () => {
  it('counts the source and test files selected, ranks the first needed source file, and ignores other files', () => {
    const s = scoreCase(mk({ id: 'x' }), outcome(['z.go', 'y.go', 'b.go', 'a_test.go', 'CHANGES.md']));
    expect(s.source).toEqual({ expected: 2, found: 1 });
    expect(s.test).toEqual({ expected: 1, found: 1 });
    expect(s.firstSource).toBe(3);
    expect(s.missed).toEqual([{ path: 'a.go', role: 'source', why: 'not selected' }]);
    expect(scoreCase(mk({ id: 'y' }), outcome(['z.go'])).firstSource).toBe(0);
  });

  it("a missed file carries the selection's exclusion reason when it gave one", () => {
    const s = scoreCase(mk({ id: 'x' }), outcome([], { excluded: new Map([['a_test.go', 'capped: rank 9']]) }));
    expect(s.missed.find((m) => m.path === 'a_test.go')?.why).toBe('capped: rank 9');
    expect(s.missed.find((m) => m.path === 'a.go')?.why).toBe('not selected');
  });

  it('recall counts files over all cases; the top-five share counts cases; cap hits and times are tallied', () => {
    const found = scoreCase(mk({ id: 'a' }), outcome(['a.go', 'b.go', 'a_test.go'], { capped: true, selectMs: 30 }));
    const late = scoreCase(mk({ id: 'b' }), outcome(['1', '2', '3', '4', '5', 'a.go'], { selectMs: 10 }));
    const t = tallyRecall([found, late]);
    expect([t.sourceFound, t.sourceExpected, t.sourceRecall]).toEqual([3, 4, 0.75]);
    expect([t.firstInTop, t.firstInTopRate, t.firstAtOne]).toEqual([1, 0.5, 1]);
    expect([t.testFound, t.testExpected, t.testRecall]).toEqual([1, 2, 0.5]);
    expect(t.capped).toBe(1);
    expect([t.medianMs, t.maxMs]).toEqual([30, 30]);
    expect(late.firstSource).toBe(FIRST_K + 1);
    const atFive = scoreCase(mk({ id: 'c' }), outcome(['1', '2', '3', '4', 'b.go']));
    expect(atFive.firstSource).toBe(FIRST_K);
    expect(tallyRecall([atFive, late]).firstInTop).toBe(1);
  });

  it('groups bug reports by language and repository size; commit subjects and held-out cases get their own rows', () => {
    const scores = [
      scoreCase(mk({ id: 'g' }), outcome(['a.go'])),
      scoreCase(mk({ id: 'p', language: 'python', heldOut: true }), outcome(['a.go'], { repoFiles: SMALL_REPO_FILES })),
      scoreCase(mk({ id: 's', text: { from: 'commit subject', title: 'fix a' } }), outcome([])),
    ];
    const r = recallReport(scores);
    expect(Object.keys(r.byLanguage)).toEqual(['go', 'python']);
    expect([r.bySize.small.cases, r.bySize.large.cases]).toEqual([1, 1]);
    expect(r.heldOut.cases).toBe(1);
    expect(r.commitSubjects.cases).toBe(1);
    expect(r.total.cases).toBe(2);
    const table = formatRecallReport(r);
    expect(table).toMatch(/^language go\s+1\s+50% \(1\/2\)/m);
    expect(table).toMatch(/^held out\s+1/m);
    expect(table).toMatch(/^commit subjects\s+1\s+0% \(0\/2\)/m);
    expect(table).toContain('not met');
    expect(formatCaseLines(scores, true)).toContain('missed s: source a.go (not selected)');
  });

  it('the goals need all three figures', () => {
    const all = tallyRecall([scoreCase(mk({ id: 'a' }), outcome(['a.go', 'b.go', 'a_test.go']))]);
    expect(meetsRecallGoals(all)).toBe(true);
    expect(meetsRecallGoals({ ...all, testRecall: 0.69 })).toBe(false);
    expect(meetsRecallGoals({ ...all, firstInTopRate: 0.79 })).toBe(false);
    expect(meetsRecallGoals({ ...all, sourceRecall: 0.89 })).toBe(false);
  });
});

describe('eval:targets: the bug-report corpus', () => {
  const reports = BUG_REPORTS.filter((c) => c.text.from === 'issue');

  it('holds at least 30 bug reports with their own text, in at least five languages, with held-out cases', () => {
    expect(reports.length).toBeGreaterThanOrEqual(30);
    expect(new Set(reports.map((c) => c.language)).size).toBeGreaterThanOrEqual(5);
    expect(reports.filter((c) => c.heldOut).length).toBeGreaterThanOrEqual(3);
    expect(new Set(BUG_REPORTS.map((c) => c.id)).size).toBe(BUG_REPORTS.length);
  });

  it.each(BUG_REPORTS.map((c) => [c.id, c] as const))('%s: pinned commits, a report address of its repository, a needed source file', (_id, c) => {
    expect(c.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(c.fix).toMatch(/^[0-9a-f]{40}$/);
    expect(c.commit).not.toBe(c.fix);
    if (c.text.from === 'issue') {
      expect(c.text.url).toBe(`https://github.com/${c.repo}/issues/${c.text.url.split('/').pop()}`);
      expect(c.text.title.trim()).not.toBe('');
      expect(c.text.body.trim()).not.toBe('');
      expect(c.text.body.length).toBeLessThanOrEqual(4000);
    }
    expect(c.expectedFiles.some((f) => f.role === 'source')).toBe(true);
    expect(new Set(c.expectedFiles.map((f) => f.path)).size).toBe(c.expectedFiles.length);
  });

  it('roles agree with the path rules, but for fixture files a test uses (recorded as test)', () => {
    const rules = defaultPathRules();
    const disagree = BUG_REPORTS.flatMap((c) =>
      c.expectedFiles
        .filter((f) => f.role !== 'other')
        .filter((f) => (rules.classify(f.path) === 'test' ? 'test' : 'source') !== f.role)
        .map((f) => `${c.id}: ${f.path} ${f.role}`),
    );
    expect(disagree).toEqual([
      'vite-lightningcss-visitor-twice: playground/css-lightningcss/minify.css test',
      'vite-lightningcss-visitor-twice: playground/css-lightningcss/vite.config.js test',
    ]);
  });
});
