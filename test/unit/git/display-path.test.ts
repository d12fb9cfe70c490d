import { describe, expect, it } from 'vitest';
import { TerminalReporter } from '../../../src/app/cli/terminal-reporter.js';
import { renderRunReport } from '../../../src/core/phases/run-report.js';
import type { RunReportInput } from '../../../src/core/phases/run-report-schema.js';
import { displayPath, escapeControls, quoteGitPath } from '../../../src/core/text/quote-path.js';

describe('file names for display', () => {
  it.each([
    ['src/index.ts', 'src/index.ts'],
    ['café.md', 'café.md'],
    ['a\u001b[31mred', '"a\\033[31mred"'],
    ['tab\there', '"tab\\there"'],
    ['new\nline', '"new\\nline"'],
    ['quote"d', '"quote\\"d"'],
    ['back\\slash', '"back\\\\slash"'],
    ['evil\u202etxt.exe', '"evil\\342\\200\\256txt.exe"'],
    ['c1\u009bcsi', '"c1\\302\\233csi"'],
  ])('%j shows as %s', (name, shown) => expect(displayPath(name)).toBe(shown));

  it('agrees with git for ASCII control characters', () => {
    for (const name of ['a\u001bb', 'x\ty', 'p"q']) expect(displayPath(name)).toBe(quoteGitPath(name));
  });

  it('free text keeps tabs and Unicode, and loses the power of ESC', () => {
    expect(escapeControls('ok\tcafé \u001b]8;;http://x\u0007link')).toBe('ok\tcafé \\033]8;;http://x\\007link');
  });

  it('the terminal reporter never writes a raw ESC from a summary or a publish note', () => {
    let written = '';
    const reporter = new TerminalReporter({ write: (t) => void (written += t), enabled: true });
    reporter.start('run');
    reporter.phase({ phase: 'ingest', state: 'done', summary: 'refused \u001b[2Jname' });
    reporter.finish({ status: 'DONE' } as unknown as Parameters<TerminalReporter['finish']>[0], '/tmp/run', { publishNote: 'branch \u001b[31mx' });
    expect(written).not.toContain('\u001b');
    expect(written).toContain('refused \\033[2Jname');
    expect(written).toContain('branch \\033[31mx');
  });

  it('the pull request body shows an ESC in a file name as an escape', () => {
    const input = {
      schemaVersion: 1,
      runId: 'k3j5h2m4n6p7',
      attempt: 1,
      status: 'COMPLETED',
      title: 'Rename',
      objective: 'Rename.',
      mode: 'draft_pr',
      repository: 'acme/shop',
      baseRef: 'main',
      baseCommitSha: '0123456789abcdef0123456789abcdef01234567',
      createdAt: '2026-11-29T10:00:00.000Z',
      scope: { paths: ['src/\u001b[31m**'], untouched: [] },
      strategy: { engine: 'recipe', steps: [] },
      targets: [{ path: 'src/a\u001b]8;;http://evil\u0007b.ts', change: 'MODIFIED', insertions: 1, deletions: 1, reasons: ['named \u001b[2J in the task'] }],
      verification: { checks: [], notRun: [], ciCommands: [], verifier: 'none' },
      risk: { level: 'LOW', score: 1, reasons: [], requiredGate: 'NONE' },
      policyVerdicts: [],
      budget: {
        steps: { used: 1, limit: 2 },
        modelCalls: { used: 0, limit: 1 },
        tokens: { used: 0, limit: 1 },
        files: { used: 1, limit: 2 },
        lines: { used: 2, limit: 3 },
      },
      phases: [],
      artifacts: [],
    } as unknown as RunReportInput;
    const body = renderRunReport(input);
    expect(body).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(body).toContain('src/a\\033]8;;http://evil\\007b.ts');
  });
});
