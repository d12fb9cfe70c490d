import { describe, expect, it } from 'vitest';
import { parseOutput } from '../../../src/core/verify/output-failures.js';

const ROOT = '/sandbox/src';

describe("failures read from a command's output", () => {
  it('go test, plain: the failing test and the file:line it reports', () => {
    const out = ['--- FAIL: TestAdd (0.00s)', `    ${ROOT}/calc/add_test.go:12: add(1, 2) = -1, want 3`, 'FAIL', 'FAIL\texample.com/calc\t0.002s'].join('\n');
    expect(parseOutput(out, ROOT)).toEqual({
      format: 'go test',
      noTests: false,
      failures: [{ test: 'TestAdd' }, { file: 'calc/add_test.go', line: 12, message: 'add(1, 2) = -1, want 3' }],
    });
  });

  it('go test -json: failures by package and test; no test event at all is no test run', () => {
    const events = [
      { Action: 'run', Package: 'example.com/calc', Test: 'TestAdd' },
      { Action: 'fail', Package: 'example.com/calc', Test: 'TestAdd', Elapsed: 0 },
      { Action: 'fail', Package: 'example.com/calc', Elapsed: 0 },
    ];
    expect(parseOutput(events.map((e) => JSON.stringify(e)).join('\n'))).toEqual({
      format: 'go test -json',
      noTests: false,
      failures: [{ test: 'example.com/calc.TestAdd' }],
    });
    expect(parseOutput(JSON.stringify({ Action: 'skip', Package: 'example.com/empty' })).noTests).toBe(true);
  });

  it('pytest: the summary lines and the assertion line; "no tests ran" is no test run', () => {
    const out = [
      `${ROOT}/tests/test_calc.py:7: AssertionError`,
      '=========================== short test summary info ============================',
      'FAILED tests/test_calc.py::test_add - assert -1 == 3',
      '1 failed in 0.03s',
    ].join('\n');
    expect(parseOutput(out, ROOT).failures).toEqual([
      { file: 'tests/test_calc.py', line: 7, message: 'AssertionError' },
      { file: 'tests/test_calc.py', test: 'test_add', message: 'assert -1 == 3' },
    ]);
    expect(parseOutput('\n============================ no tests ran in 0.01s =============================\n').noTests).toBe(true);
  });

  it('unittest, TAP from node --test, Maven Surefire and javac', () => {
    expect(parseOutput('FAIL: test_add (tests.test_calc.CalcTest.test_add)\n').failures).toEqual([{ test: 'tests.test_calc.CalcTest.test_add' }]);
    expect(parseOutput('Ran 0 tests in 0.000s\n\nOK\n').noTests).toBe(true);
    expect(parseOutput('not ok 1 - add sums its arguments\n# tests 1\n').failures).toEqual([{ test: 'add sums its arguments' }]);
    expect(parseOutput('1..0\n# tests 0\n# pass 0\n').noTests).toBe(true);
    expect(parseOutput('[ERROR]   CalcTest.add:14 expected: <3> but was: <-1>\n').failures).toEqual([
      { test: 'CalcTest.add', line: 14, message: 'expected: <3> but was: <-1>' },
    ]);
    expect(parseOutput(`[ERROR] ${ROOT}/src/main/java/a/Calc.java:[9,12] cannot find symbol\n`, ROOT).failures).toEqual([
      { file: 'src/main/java/a/Calc.java', line: 9, message: 'cannot find symbol' },
    ]);
  });

  it('tsc in both of its formats, and ESLint stylish', () => {
    expect(parseOutput("src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n").failures).toEqual([
      { file: 'src/a.ts', line: 3, message: "TS2322: Type 'string' is not assignable to type 'number'." },
    ]);
    expect(parseOutput("src/a.ts:3:7 - error TS2304: Cannot find name 'x'.\n").failures).toEqual([
      { file: 'src/a.ts', line: 3, message: "TS2304: Cannot find name 'x'." },
    ]);
    const stylish = [`${ROOT}/src/b.js`, "  4:10  error  'y' is defined but never used  no-unused-vars", '', '✖ 1 problem (1 error, 0 warnings)'].join('\n');
    expect(parseOutput(stylish, ROOT)).toMatchObject({
      format: 'eslint',
      failures: [{ file: 'src/b.js', line: 4, message: "'y' is defined but never used (no-unused-vars)" }],
    });
  });

  it('bounds what it reads: failures past 50 are dropped, very long lines are not matched', () => {
    const many = Array.from({ length: 80 }, (_, i) => `not ok ${i + 1} - case ${i}`).join('\n');
    expect(parseOutput(many).failures).toHaveLength(50);
    expect(parseOutput(`not ok 1 - ${'x'.repeat(5000)}`).failures).toEqual([]);
  });
});
