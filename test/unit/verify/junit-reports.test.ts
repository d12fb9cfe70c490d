import { describe, expect, it } from 'vitest';
import { commandResultOf } from '../../../src/core/pipeline/command-outcome.js';
import { isJUnitReportPath, JUNIT_LIMITS, parseJUnitXml } from '../../../src/core/verify/junit-reports.js';
import type { CommandOutcome } from '../../../src/core/verify/verifier.js';

/** What pytest 8 writes with `--junitxml=report.xml` for one passing and one failing test (written on this machine). */
const PYTEST = `<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="0" failures="1" skipped="0" tests="2" time="0.028" timestamp="2026-12-05T20:06:39.376284+00:00" hostname="vm"><testcase classname="test_calc" name="test_add" time="0.000" /><testcase classname="test_calc" name="test_sub" time="0.001"><failure message="assert 1 == 2&#10; +  where 1 = sub(3, 2)">def test_sub():
&gt;       assert sub(3, 2) == 2
E       assert 1 == 2
E        +  where 1 = sub(3, 2)

test_calc.py:8: AssertionError</failure></testcase></testsuite></testsuites>`;

/** Maven Surefire's report shape: a failure, an error without a message, a skipped test. */
const SUREFIRE = `<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" name="org.acme.OrderServiceTest" time="0.051" tests="4" errors="1" skipped="1" failures="1">
  <properties><property name="java.version" value="21"/></properties>
  <testcase name="totals" classname="org.acme.OrderServiceTest" time="0.004"/>
  <testcase name="rejectsEmpty" classname="org.acme.OrderServiceTest" time="0.01">
    <failure message="expected: &lt;2&gt; but was: &lt;3&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: expected: <2> but was: <3>
	at org.acme.OrderServiceTest.rejectsEmpty(OrderServiceTest.java:27)]]></failure>
  </testcase>
  <testcase name="persists" classname="org.acme.OrderServiceTest" time="0.02">
    <error type="java.lang.NullPointerException">java.lang.NullPointerException: repository
	at org.acme.OrderService.save(OrderService.java:40)</error>
  </testcase>
  <testcase name="later" classname="org.acme.OrderServiceTest" time="0"><skipped/></testcase>
</testsuite>`;

describe('JUnit XML reports', () => {
  it('names the failed pytest test, its message, and counts the cases', () => {
    expect(parseJUnitXml(PYTEST)).toEqual({ tests: 2, failures: [{ test: 'test_calc.test_sub', message: 'assert 1 == 2 + where 1 = sub(3, 2)' }] });
  });

  it('reads Surefire failures and errors, decodes entities, and counts skipped cases as tests only', () => {
    expect(parseJUnitXml(SUREFIRE)).toEqual({
      tests: 4,
      failures: [
        { test: 'org.acme.OrderServiceTest.rejectsEmpty', message: 'expected: <2> but was: <3>' },
        { test: 'org.acme.OrderServiceTest.persists', message: 'java.lang.NullPointerException: repository' },
      ],
    });
  });

  it('keeps file and line when the tool writes them, and refuses nonsense numbers', () => {
    const xml = `<testsuite><testcase classname="web.cart" name="adds" file="web/cart.test.ts" line="12"><failure message="boom"/></testcase><testcase name="x" line="-3"><error message="&#xFFFFFFF; &#0;"/></testcase></testsuite>`;
    expect(parseJUnitXml(xml).failures).toEqual([
      { test: 'web.cart.adds', file: 'web/cart.test.ts', line: 12, message: 'boom' },
      { test: 'x', message: '&#xFFFFFFF; &#0;' },
    ]);
  });

  it('reads at most its byte limit of a report, in time linear in its size', () => {
    const many = `<testsuite>${'<testcase name="t"><failure message="m"/></testcase>'.repeat(40_000)}`;
    expect(many.length).toBeGreaterThan(JUNIT_LIMITS.maxBytes);
    const parsed = parseJUnitXml(many);
    expect(parsed.tests).toBeLessThanOrEqual(Math.ceil(JUNIT_LIMITS.maxBytes / 50));
    expect(parsed.failures).toHaveLength(50);
    // An unterminated tag with a huge attribute: no backtracking blow-up.
    const started = performance.now();
    parseJUnitXml(`<testcase name="${'a'.repeat(900_000)}`);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('knows where test tools write their reports', () => {
    for (const path of [
      'target/surefire-reports/TEST-org.acme.OrderServiceTest.xml',
      'svc/target/failsafe-reports/TEST-it.xml',
      'build/test-results/test/TEST-a.xml',
      'app/build/test-results/test/results.xml',
      'junit.xml',
      'reports/junit-results.xml',
      'out/report.junit.xml',
    ])
      expect(isJUnitReportPath(path), path).toBe(true);
    for (const path of ['pom.xml', 'src/main/resources/junit.properties', 'docs/test.xml', 'TEST.xml', 'junitish.xml'])
      expect(isJUnitReportPath(path), path).toBe(false);
  });
});

describe('a test command with reports', () => {
  const outcome = (output: string, reports: CommandOutcome['reports'], exitCode = 1): CommandOutcome => ({
    command: { run: 'pytest --junitxml=report.xml', cwd: '.', kind: 'test', source: 'policy' },
    exitCode,
    durationMs: 10,
    timedOut: false,
    outputLimited: false,
    outputBytes: output.length,
    output,
    reports,
  });
  const limits = { commandTimeoutMs: 1000, maxOutputBytes: 1000 };

  it('adds the failures only the report names, once', () => {
    const result = commandResultOf(
      outcome('FAILED test_calc.py::test_sub - assert 1 == 2\n', [
        { path: 'report.xml', text: PYTEST },
        { path: 'more/junit.xml', text: SUREFIRE },
      ]),
      '/src',
      limits,
    );
    expect(result.status).toBe('FAILED');
    expect(result.failures.map((f) => f.test)).toEqual([
      'test_sub',
      'test_calc.test_sub',
      'org.acme.OrderServiceTest.rejectsEmpty',
      'org.acme.OrderServiceTest.persists',
    ]);
  });

  it("a test Surefire's summary names without its package is not listed again from the report", () => {
    // Surefire 2.22's summary line, as Maven prints it in batch mode.
    const output =
      '[ERROR] Failures: \n[ERROR]   OrderServiceTest.rejectsEmpty:27 expected: <2> but was: <3>\n[ERROR] Tests run: 4, Failures: 1, Errors: 1, Skipped: 1\n';
    const result = commandResultOf(outcome(output, [{ path: 'target/surefire-reports/TEST-org.acme.OrderServiceTest.xml', text: SUREFIRE }]), '/src', limits);
    expect(result.failures.map((f) => f.test)).toEqual(['OrderServiceTest.rejectsEmpty', 'org.acme.OrderServiceTest.persists']);
    expect(result.failures[0]).toMatchObject({ line: 27, message: 'expected: <2> but was: <3>' });
  });

  it('a command whose output says nothing of its tests still shows what its report names', () => {
    const result = commandResultOf(outcome('make: *** [test] Error 1\n', [{ path: 'target/surefire-reports/TEST-x.xml', text: SUREFIRE }]), '/src', limits);
    expect(result.failures).toHaveLength(2);
    expect(result.failures[0]).toMatchObject({ test: 'org.acme.OrderServiceTest.rejectsEmpty' });
  });

  it('a report that lists test cases means tests ran, whatever the output says', () => {
    const result = commandResultOf(outcome('no tests ran\n', [{ path: 'junit.xml', text: '<testsuite><testcase name="a"/></testsuite>' }], 0), '/src', limits);
    expect(result.status).toBe('PASSED');
  });
});
