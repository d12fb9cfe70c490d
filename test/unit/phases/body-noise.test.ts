import { describe, expect, it } from 'vitest';
import { renderRunReport } from '../../../src/core/phases/run-report.js';
import type { RunReportInput } from '../../../src/core/phases/run-report-schema.js';
import { testCommandsOf } from '../../../src/core/pipeline/report-test-commands.js';
import type { RepoMap } from '../../../src/core/repomap/repo-map-schema.js';

function report(overrides: Partial<RunReportInput>): RunReportInput {
  return {
    schemaVersion: 1,
    runId: 'k3j5h2m4n6p7',
    attempt: 1,
    status: 'COMPLETED',
    title: 'total() fails on None',
    objective: 'total() fails on None.',
    baseCommitSha: '0123456789abcdef0123456789abcdef01234567',
    scope: { paths: [] },
    strategy: { engine: 'llm', steps: [] },
    targets: [],
    verification: { checks: [], notRun: [], ciCommands: [] },
    risk: { level: 'LOW', score: 1, reasons: [] },
    budget: { steps: { used: 1 }, files: { used: 1 }, lines: { used: 2 } },
    ...overrides,
  };
}

describe('the PR body says each thing once and shows how to run the tests', () => {
  it('drops repeated warnings, repeated sentences and notes that repeat a warning', () => {
    const body = renderRunReport(
      report({ warnings: ['Incomplete change: a. Incomplete change: a.', 'Incomplete change: a.'], notes: ['Incomplete change: a.', 'other  note'] }),
    );
    expect(body.match(/Incomplete change: a\./g)).toHaveLength(1);
    expect(body).toContain('- other note');
  });

  it('lists the test commands of the touched modules as commands to run, from their directory', () => {
    const body = renderRunReport(
      report({
        testCommands: [
          { module: 'py', cwd: '.', run: 'python -m pytest -q tests/test_invoice.py', focused: true },
          { module: 'web', cwd: 'web', run: 'npm test', focused: false },
        ],
      }),
    );
    expect(body).toContain(
      '### Run the tests of the change\n\nFrom the repository map, for the modules the change touched, focused on the changed test files where the map knows how:\n\n```sh\npython -m pytest -q tests/test_invoice.py\n(cd web && npm test)\n```\n',
    );
  });
});

describe('the test commands of a change', () => {
  const map = {
    modules: [
      { id: 'py', path: '.' },
      { id: 'svc', path: 'svc' },
      { id: 'go', path: 'gosvc' },
    ],
    build: [
      {
        moduleId: 'py',
        unitTest: { cwd: '.', argv: ['python', '-m', 'pytest', '-q'] },
        focusedTestTemplate: { cwd: '.', argv: ['python', '-m', 'pytest', '-q', '{testFile}'] },
      },
      { moduleId: 'svc', unitTest: { cwd: 'svc', argv: ['mvn', 'test'] }, focusedTestTemplate: { cwd: 'svc', argv: ['mvn', '-Dtest={className}', 'test'] } },
      {
        moduleId: 'go',
        unitTest: { cwd: 'gosvc', argv: ['go', 'test', './...'] },
        focusedTestTemplate: { cwd: 'gosvc', argv: ['go', 'test', './...', '-run', '^{testName}$'] },
      },
    ],
  } as unknown as RepoMap;
  const classify = (p: string) => (/(^|\/)(tests?|src\/test)\//.test(p) || p.endsWith('_test.go') ? 'test' : 'source') as never;

  it('fills a file or class template with the changed tests, else gives the module suite; untouched modules get none', () => {
    expect(testCommandsOf(map, ['src/app.py', 'tests/test_app.py', 'svc/src/main/A.java', 'svc/src/test/ATest.java', 'gosvc/a_test.go'], classify)).toEqual([
      { module: 'py', cwd: '.', run: 'python -m pytest -q tests/test_app.py', focused: true },
      { module: 'svc', cwd: 'svc', run: 'mvn -Dtest=ATest test', focused: true },
      { module: 'go', cwd: 'gosvc', run: 'go test ./...', focused: false },
    ]);
    expect(testCommandsOf(map, ['svc/src/main/A.java'], classify)).toEqual([{ module: 'svc', cwd: 'svc', run: 'mvn test', focused: false }]);
    expect(testCommandsOf(undefined, ['a.py'], classify)).toEqual([]);
  });
});
