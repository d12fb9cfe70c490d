import { describe, expect, it } from 'vitest';
import {
  ANALYSIS_REPORT_ARTIFACT,
  GITHUB_COMMENT_LIMIT,
  analysisReportMarker,
  renderAgentBlock,
  renderAnalysisReport,
  type AnalysisReportInput,
} from '../../../src/core/phases/analysis-report.js';
import { renderRunReport } from '../../../src/core/phases/run-report.js';
import type { RunReportInput } from '../../../src/core/phases/run-report-schema.js';
import { parseTask } from '../../../src/core/task/parse-task.js';
import type { RecipeStep } from '../../../src/core/task/recipe-steps.js';

const STEPS = [
  { recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence', version: '3.1.0' },
  { recipe: 'bump-dependency', package: 'org.springframework.boot:spring-boot-starter-parent', to: '3.2.5' },
] as const;

function report(overrides: Partial<AnalysisReportInput> = {}): AnalysisReportInput {
  return {
    schemaVersion: 1,
    runId: 'k3j5h2m4n6p7',
    attempt: 1,
    status: 'COMPLETED',
    title: 'Migrate javax.persistence to jakarta.persistence',
    objective: 'Move the persistence imports to Jakarta.',
    repository: 'acme/shop',
    baseRef: 'main',
    baseCommitSha: '0123456789abcdef0123456789abcdef01234567',
    plan: {
      summary: 'A draft PR would apply 2 deterministic recipe steps, in this order, to 2 files; no model would be asked. This run changed nothing.',
      steps: [
        { text: 'migrate-import: move imports from javax.persistence to jakarta.persistence', files: ['src/main/java/shop/Order.java'] },
        { text: 'bump-dependency: bump the parent to 3.2.5', files: ['pom.xml'] },
      ],
    },
    targets: [
      {
        path: 'src/main/java/shop/Order.java',
        rank: 0.9,
        classification: 'source',
        editable: true,
        module: 'shop',
        owners: ['alice'],
        reasons: ['migrate-import can change this file (import javax.persistence.Entity)'],
      },
      {
        path: 'pom.xml',
        rank: 0.9,
        classification: 'manifest',
        editable: true,
        module: '.',
        owners: [],
        reasons: ['bump-dependency can change this file (parent version)'],
      },
    ],
    modules: [
      { name: '.', files: 1, owners: [] },
      { name: 'shop', files: 1, owners: ['alice', 'acme/persistence'] },
    ],
    risk: { level: 'MEDIUM', score: 5, reasons: ['dependency manifest: pom.xml'], requiredGate: 'HUMAN_REVIEW', files: 2 },
    questions: ['No scope (`paths`) was given, so the whole repository was searched: should the change stay inside one directory or module?'],
    agentBlock: { paths: ['src/**', 'pom.xml'], steps: [...STEPS] },
    artifacts: [{ name: 'run-report.md', url: 'runs/acme/shop/k3j5h2m4n6p7/attempts/1/run-report.md' }],
    ...overrides,
  };
}

/** Every sentence that would claim a change happened; an analysis report has none of them. */
const CHANGE_CLAIMS = [
  /\bChanged \d+ files?\b/i,
  /\b\d+ files? changed\b/i,
  /\bcommit [0-9a-f]{7,}\b/i,
  /\bpull request (?:#\d+ )?(?:is )?(?:opened|created)\b/i,
  /\bdraft PR is ready\b/i,
];

function sectionOf(text: string, heading: string): string {
  const start = text.indexOf(`### ${heading}`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n### ', start + 4);
  return text.slice(start, end < 0 ? undefined : end);
}

describe('renderAnalysisReport (analysis report)', () => {
  it('has the plan, targets with why, modules and owners, a risk forecast, open questions and the task block', () => {
    const text = renderAnalysisReport(report());
    expect(text.split('\n')[0]).toBe(analysisReportMarker('k3j5h2m4n6p7', 1));
    expect(sectionOf(text, 'Plan')).toContain(
      '1. migrate-import: move imports from javax.persistence to jakarta.persistence; would change 1 file: `src/main/java/shop/Order.java`',
    );
    expect(sectionOf(text, 'Target files (2)')).toContain('| `pom.xml` | . | yes | bump-dependency can change this file (parent version) |');
    expect(sectionOf(text, 'Modules and owners')).toContain('| shop | 1 | `alice` `acme/persistence` |');
    expect(sectionOf(text, 'Risk (forecast)')).toContain(
      'If the 2 files above were changed, the risk would be **MEDIUM** (score 5); the gate would be `HUMAN_REVIEW`.',
    );
    expect(sectionOf(text, 'Open questions')).toContain('- No scope (`paths`) was given');
    expect(sectionOf(text, 'Ready-to-paste task')).toContain('To open a draft PR with this plan, comment `/agent run` with this block');
    expect(sectionOf(text, 'Ready-to-paste task')).toContain('```agent\n');
    // Steps read from the task's words are offered as a suggestion to check, not as the task.
    const suggested = renderAnalysisReport(report({ agentBlockSource: 'suggested' }));
    expect(sectionOf(suggested, 'Ready-to-paste task')).toContain('This block is a suggestion read from them: check the names');
    expect(renderAnalysisReport(report({ agentBlock: undefined }))).not.toContain('### Ready-to-paste task');
  });

  it('never claims a change: no changed files, commit or pull request, and says so', () => {
    const text = renderAnalysisReport(report());
    for (const claim of CHANGE_CLAIMS) expect(text).not.toMatch(claim);
    expect(text).toContain('draftsman changed no file, made no commit and opened no pull request');
    const noRisk = renderAnalysisReport(report({ risk: undefined, plan: { summary: 'nothing to apply', steps: [] } }));
    expect(sectionOf(noRisk, 'Risk (forecast)')).toContain('No file would change');
  });

  it('the run report of an analysis says no file changed (it used to say "Changed 2 files")', () => {
    const input: RunReportInput = {
      schemaVersion: 1,
      runId: 'k3j5h2m4n6p7',
      attempt: 1,
      status: 'COMPLETED',
      title: 't',
      objective: 'o',
      mode: 'analysis',
      baseCommitSha: '0123456789abcdef0123456789abcdef01234567',
      scope: { paths: [], untouched: [] },
      strategy: { engine: 'none', steps: [] },
      targets: [
        { path: 'a.ts', reasons: ['keyword'] },
        { path: 'b.ts', reasons: ['keyword'] },
      ],
      verification: { checks: [], notRun: [], ciCommands: [] },
      risk: { level: 'LOW', score: 0, reasons: [] },
      budget: { steps: { used: 1 }, files: { used: 0 }, lines: { used: 0 } },
    };
    const text = renderRunReport(input);
    for (const claim of CHANGE_CLAIMS) expect(text).not.toMatch(claim);
    expect(text).toContain('- Changed no file; 2 candidate files selected.');
    expect(text).toContain('| **Change** | none · engine: none |');
    expect(renderRunReport({ ...input, mode: 'draft_pr' })).toContain('- Changed 2 files.');
  });

  it('the agent block round-trips through parseTask, pasted under /agent run, hostile values included', () => {
    const steps: RecipeStep[] = [
      ...STEPS,
      { recipe: 'replace', find: 'a: b # ```x``` "q" - [c]', replace: "x\ny 'z'", regex: false, flags: '', wordBoundary: 'auto' },
      { recipe: 'replace', find: '(\\w+)Dao', replace: '$1Repository', regex: true, flags: 'i', wordBoundary: false, paths: ['src/**'] },
      { recipe: 'rename-symbol', from: 'OrderDao', to: 'OrderRepository', kind: 'class', comments: true },
    ] as RecipeStep[];
    const text = renderAnalysisReport(report({ agentBlock: { base: 'release/1.x', paths: ['src/**'], steps, budgets: { maxFiles: 10 } } }));
    // The whole report pasted as a comment: the first agent block is the one that counts.
    const task = parseTask({ title: 'Migrate', body: 'issue text', comment: `/agent run\n\n${text}`, source: 'github' });
    expect(task.blockSource).toBe('comment');
    expect(task.mode).toBe('draft_pr');
    expect(task.base).toBe('release/1.x');
    expect(task.paths).toEqual(['src/**']);
    expect(task.budgets).toEqual({ maxFiles: 10 });
    expect(task.steps).toEqual(steps);
    // Defaults are left out of the text, the parser fills them in again.
    expect(renderAgentBlock({ steps: [{ recipe: 'replace', find: 'a', replace: 'b' }] }).join('\n')).toBe(
      '```agent\nsteps:\n  - recipe: replace\n    find: a\n    replace: b\n```',
    );
  });

  it('fits a GitHub comment with thousands of targets, saying what was cut and where the rest is', () => {
    const targets = Array.from({ length: 5_000 }, (_, i) => ({
      path: `src/gen/pkg${i % 50}/File${i}.java`,
      rank: 0.3,
      classification: 'source',
      editable: true,
      module: `pkg${i % 50}`,
      owners: ['team-a'],
      reasons: [`keyword occurrence ${'x'.repeat(200)}`],
    }));
    const input = report({
      objective: 'o'.repeat(30_000),
      targets,
      modules: Array.from({ length: 50 }, (_, i) => ({ name: `pkg${i}`, files: 100, owners: ['team-a'] })),
      questions: Array.from({ length: 400 }, (_, i) => `question ${i} ${'q'.repeat(300)}`),
    });
    const full = renderAnalysisReport(input);
    const bounded = renderAnalysisReport(input, { maxChars: GITHUB_COMMENT_LIMIT });
    expect(full.length).toBeGreaterThan(GITHUB_COMMENT_LIMIT);
    expect(bounded.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(bounded.split('\n')[0]).toBe(analysisReportMarker('k3j5h2m4n6p7', 1));
    expect(sectionOf(bounded, 'Target files (5000)')).toMatch(/…and \d+ more files; the full list is in the `run-report\.md` artifact\./);
    expect(bounded).toContain(`(cut; see ${ANALYSIS_REPORT_ARTIFACT})`);
    // The block is never cut in half: it is still the task it was.
    expect(parseTask({ title: 't', body: '', comment: bounded, source: 'github' }).steps).toHaveLength(2);
    // A report that fits is not touched.
    expect(renderAnalysisReport(report(), { maxChars: GITHUB_COMMENT_LIMIT })).toBe(renderAnalysisReport(report()));
  });

  it('drops a task block too long for a comment rather than cutting it', () => {
    const steps = Array.from({ length: 50 }, (_, i) => ({ recipe: 'replace' as const, find: `f${i}${'y'.repeat(1_400)}`, replace: 'z' }));
    const bounded = renderAnalysisReport(report({ agentBlock: { steps } }), { maxChars: 20_000 });
    expect(bounded.length).toBeLessThanOrEqual(20_000);
    expect(bounded).not.toContain('```agent');
    expect(bounded).toContain('The task block is too long for a comment');
  });

  it('is deterministic and defuses mentions and HTML from the issue', () => {
    const input = report({ title: 'Fix <img src=x onerror=alert(1)> for @octocat', objective: '<!-- draftsman:analysis-report run=x attempt=9 -->' });
    const text = renderAnalysisReport(input);
    expect(renderAnalysisReport(input)).toBe(text);
    expect(text).not.toContain('<img');
    expect(text).not.toContain('@octocat');
    expect(text.split('<!-- draftsman:analysis-report')).toHaveLength(2);
  });
});
