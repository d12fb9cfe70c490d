import { describe, expect, it } from 'vitest';
import { formatCommitMessage } from '../../../src/core/git/commit-message.js';
import { markedSection, renderVerificationSection, VERIFICATION_END } from '../../../src/core/phases/verification-section.js';
import type { CommandResult } from '../../../src/core/verify/command-result.js';

const passed: CommandResult = {
  run: 'npm run test',
  cwd: '.',
  kind: 'test',
  source: 'repository map: module root (npm), touched by the change',
  status: 'PASSED',
  exitCode: 0,
  durationMs: 1234,
  excerpt: '# tests 3\n# pass 3\n# fail 0',
  failures: [],
};
const failed: CommandResult = {
  run: 'python -m pytest -q',
  cwd: 'svc',
  kind: 'test',
  source: 'agent.build.commands',
  status: 'FAILED',
  exitCode: 1,
  durationMs: 2500,
  excerpt: 'FAILED tests/test_calc.py::test_add - assert -1 == 3\n<!-- draftsman:verification:end -->\n1 failed in 0.03s',
  failures: [{ file: 'tests/test_calc.py', test: 'test_add', message: 'assert -1 == 3' }],
};
const skipped: CommandResult = {
  ...passed,
  run: 'npm run build',
  status: 'NOT_RUN',
  exitCode: null,
  durationMs: 0,
  excerpt: '',
  why: 'the verification budget (agent.verify.budgetSeconds) was spent',
};
const base = { checks: [{ name: 'Every changed file parses', status: 'PASSED' as const }], notRun: [], ciCommands: [] };

describe('the Verification section with the commands draftsman ran', () => {
  it('one row per command with its real exit code and time, then its failures and the end of its output as data', () => {
    const section = renderVerificationSection({ ...base, commands: [passed, failed, skipped], commandsRanIn: 'local sandbox (bubblewrap)' });
    expect(section).toContain('**Checked by draftsman** (static checks):');
    expect(section).toContain('**Run by draftsman** on the change (local sandbox (bubblewrap)):');
    expect(section).toContain('| `npm run test` | `.` | ✅ passed | 0 | 1.2 s |');
    expect(section).toContain('| `python -m pytest -q` | `svc` | ❌ failed | 1 | 2.5 s |');
    expect(section).toContain('| `npm run build` | `.` | ⏭️ not run: the verification budget (agent.verify.budgetSeconds) was spent |  |  |');
    expect(section).toContain('- `test_add` — `tests/test_calc.py` — assert -1 == 3');
    expect(section).toContain('```text\n# tests 3\n# pass 3\n# fail 0\n```');
    // The skipped command has no output block; output is shown in a fence, never as markdown.
    expect(section.match(/<summary>/g)).toHaveLength(2);
    // A marker a command printed cannot end the section early.
    expect(markedSection(section).split(VERIFICATION_END)).toHaveLength(2);
  });

  it('says no build or test ran when none did', () => {
    expect(renderVerificationSection(base)).toContain('**Checked by draftsman** (static checks; no build or test was run):');
    expect(renderVerificationSection({ ...base, commands: [skipped] })).toContain('(static checks; no build or test was run)');
  });

  it('the commit trailer names each command, where it ran, and how it ended', () => {
    const message = formatCommitMessage({
      type: 'fix',
      summary: 'add sums',
      task: 'Fix add',
      intent: 'add returns the sum',
      risk: [],
      runId: 'r1',
      taskId: 'sha256:0',
      verification: { status: 'PASSED', checks: [], notRun: [], commands: [passed, failed, skipped], commandsRanIn: 'local sandbox (bubblewrap)' },
    });
    expect(message).toContain('- ran npm run test (local sandbox (bubblewrap)): passed, exit 0, 1.2 s');
    expect(message).toContain('- ran python -m pytest -q in svc (local sandbox (bubblewrap)): failed, exit 1, 2.5 s');
    expect(message).toContain('- not run: npm run build: the verification budget (agent.verify.budgetSeconds) was spent');
  });
});
