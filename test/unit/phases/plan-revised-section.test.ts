import { describe, expect, it } from 'vitest';
import { renderRunReport } from '../../../src/core/phases/run-report.js';
import type { RunReportInput } from '../../../src/core/phases/run-report-schema.js';

/** A small valid report; only the plan revisions vary. */
function report(planRevisions: RunReportInput['planRevisions']): RunReportInput {
  return {
    schemaVersion: 1,
    runId: 'k3j5h2m4n6p7',
    attempt: 1,
    status: 'COMPLETED',
    title: 'Guard the token exchange',
    objective: 'Guard the token exchange.',
    baseCommitSha: '0123456789abcdef0123456789abcdef01234567',
    scope: { paths: [] },
    strategy: { engine: 'llm', steps: ['the model changes the selected files (2 files)'] },
    targets: [],
    verification: { checks: [], notRun: [], ciCommands: [] },
    risk: { level: 'LOW', score: 0, reasons: [] },
    budget: { steps: { used: 1 }, files: { used: 1 }, lines: { used: 2 } },
    planRevisions,
  };
}

describe('the plan revisions in the PR body', () => {
  it('one revision: "Plan revised 1×: <reason>" and the files it added to the plan or dropped from it, never "added" as if created', () => {
    const body = renderRunReport(report([{ reason: 'ReportJob calls the same client', added: ['src/ReportJob.java'], dropped: ['src/Old.java'] }]));
    expect(body).toContain(
      '### Plan revised 1×: ReportJob calls the same client\n\nThe model added `src/ReportJob.java` to the plan; dropped `src/Old.java` from the plan.\n',
    );
  });

  it('several revisions: one line each; the reason is model text, so markup and mentions are defused', () => {
    const body = renderRunReport(
      report([
        { reason: 'first', added: ['a.py'], dropped: [] },
        { reason: 'ping @maintainers <img src=x>', added: [], dropped: ['b.py'] },
      ]),
    );
    expect(body).toContain('### Plan revised 2×\n\n- first (added `a.py` to the plan)\n- ');
    expect(body).not.toContain('@maintainers');
    expect(body).not.toContain('<img');
  });

  it('no revision, no section', () => {
    expect(renderRunReport(report([]))).not.toContain('Plan revised');
  });
});
