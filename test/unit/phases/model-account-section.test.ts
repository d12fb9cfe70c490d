import { describe, expect, it } from 'vitest';
import { renderRunReport } from '../../../src/core/phases/run-report.js';
import type { RunReportInput } from '../../../src/core/phases/run-report-schema.js';
import { MAX_ACCOUNT_CHARS } from '../../../src/core/phases/model-sections.js';
import { caveatsOf } from '../../../src/core/pipeline/report-model-account.js';

/** A small valid report of a model run; only the model's account varies. */
function report(modelAccount: RunReportInput['modelAccount']): RunReportInput {
  return {
    schemaVersion: 1,
    runId: 'k3j5h2m4n6p7',
    attempt: 1,
    status: 'COMPLETED',
    title: 'total() fails on None',
    objective: 'total() fails on None.',
    baseCommitSha: '0123456789abcdef0123456789abcdef01234567',
    scope: { paths: [] },
    strategy: { engine: 'llm', steps: ['the model changed 1 file (2 files in the plan)'] },
    targets: [{ path: 'src/invoice.py', change: 'MODIFIED', insertions: 1, deletions: 1, reasons: [] }],
    verification: { checks: [], notRun: [], ciCommands: [] },
    risk: { level: 'LOW', score: 1, reasons: ['1 production file edited by the model (+1)'] },
    budget: { steps: { used: 1 }, files: { used: 1 }, lines: { used: 2 } },
    modelAccount,
  };
}

function riskSection(body: string): string {
  const start = body.indexOf('<summary>Risk:');
  return body.slice(start, body.indexOf('</details>', start));
}

describe("the model's account in the PR body", () => {
  it('is quoted under "What changed and why", framed as its words, code kept, mentions and HTML defused', () => {
    const text = 'Made `total` accept `None` (<b>fixed</b>), cc @octocat.\n\n```python\nassert total(None) == 0  # <tag>\n```';
    const body = renderRunReport(report([{ segment: 'model-change', text, caveats: [] }]));
    expect(body).toContain(
      [
        '### What changed and why',
        '',
        "In the model's own words (its final answer, not checked by draftsman: the diff, the checks and CI below say what ran):",
        '',
        '> Made `total` accept `None` (&lt;b&gt;fixed&lt;/b&gt;), cc @&#8203;octocat.',
        '>',
        '> ```python',
        '> assert total(None) == 0  # <tag>',
        '> ```',
        '',
      ].join('\n'),
    );
    expect(body.indexOf('### What changed and why')).toBeLessThan(body.indexOf('<summary>Scope and strategy'));
    expect(body).not.toContain('@octocat');
  });

  it('is bounded: a long answer is cut and says where the whole one is', () => {
    const body = renderRunReport(report([{ segment: 'model-change', text: 'word '.repeat(2_000), caveats: [] }]));
    const section = body.slice(body.indexOf('### What changed and why'), body.indexOf('<details>'));
    expect(section.length).toBeLessThan(MAX_ACCOUNT_CHARS + 600);
    expect(section).toContain(`(cut at ${MAX_ACCOUNT_CHARS} characters; the run's ledger keeps the whole answer)`);
  });

  it('lists its caveats under Risk, in its words and defused, and counts them in the summary', () => {
    const body = renderRunReport(report([{ segment: 'model-change', text: 'x', caveats: ['I did not run the tests <script>.', 'Could not reach @team.'] }]));
    expect(riskSection(body)).toContain(
      "**The model's caveats** (what it says it did not verify or could not do, in its words):\n\n- I did not run the tests &lt;script&gt;.\n- Could not reach @&#8203;team.",
    );
    expect(body).toMatch(/\| \*\*Risk\*\* \| LOW \(score 1\) · anti-cheat: no finding · the model names 2 things it did not check or do \(see Risk\) \|/);
  });

  it('no account, no section and no caveat', () => {
    const body = renderRunReport(report([]));
    expect(body).not.toContain('What changed and why');
    expect(body).not.toContain('caveats');
  });
});

describe("the model's caveats, read from its answer", () => {
  it('are the sentences saying what it did not verify or could not do, not its description of the bug', () => {
    const answer = [
      'Made `total` accept None: the old code did not handle a missing list.',
      '',
      '- I did not run the test suite; please run `pytest`.',
      "- Couldn't reproduce the API error locally.",
      'The docs are not updated. The rounding is untested.',
      '```',
      'I did not run this line of code',
      '```',
    ].join('\n');
    expect(caveatsOf(answer)).toEqual([
      'I did not run the test suite;',
      "Couldn't reproduce the API error locally.",
      'The docs are not updated.',
      'The rounding is untested.',
    ]);
  });
});
