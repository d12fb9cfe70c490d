/**
 * Failures read from a command's output where the tool's format is known: `go test` (plain and
 * `-json`), pytest, unittest, TAP (`node --test`), Maven Surefire, tsc, ESLint's stylish
 * format, and compiler lines `file:line:col: message` (go build, javac via Maven, pytest's assertion lines). Also whether
 * the command ran no test at all, so that it is never reported as passing. The JUnit XML reports
 * a test command writes are read by junit-reports.ts.
 */

export interface ParsedFailure {
  /** The failing test, as the tool names it. */
  test?: string;
  file?: string;
  line?: number;
  message?: string;
}

export interface ParsedOutput {
  failures: ParsedFailure[];
  /** The tool said it ran no test (no test files, zero collected). */
  noTests: boolean;
  /** Which format was recognised, when one was. */
  format?: string;
}

/** Failures kept per command. */
export const MAX_FAILURES = 50;
const MAX_MESSAGE = 300;
/** Lines longer than this are not matched (bounded regex cost on hostile output). */
const MAX_LINE = 2000;

const clip = (text: string) => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 3)}...` : text).trim();

interface LineRule {
  format: string;
  pattern: RegExp;
  failure(m: RegExpExecArray): ParsedFailure;
}

const LINE_RULES: readonly LineRule[] = [
  { format: 'go test', pattern: /^\s*--- FAIL: (\S+)/, failure: (m) => ({ test: m[1] }) },
  { format: 'pytest', pattern: /^(?:FAILED|ERROR) (\S+?)::(\S+)(?: - (.*))?$/, failure: (m) => ({ file: m[1], test: m[2], message: m[3] && clip(m[3]) }) },
  { format: 'unittest', pattern: /^(?:FAIL|ERROR): (\S+) \(([^)]+)\)/, failure: (m) => ({ test: `${m[2]}.${m[1]}`.replace(/\.(\w+)\.\1$/, '.$1') }) },
  { format: 'TAP', pattern: /^\s*not ok \d+ - (.+?)(?:\s+#.*)?$/, failure: (m) => ({ test: m[1] }) },
  {
    format: 'maven surefire',
    pattern: /^\[ERROR\]\s+(?:Tests run:.*<<< FAIL.*-- in )?([\w.$]+)\.(\w+):(\d+) (.*)$/,
    failure: (m) => ({ test: `${m[1]}.${m[2]}`, line: Number(m[3]), message: clip(m[4]) }),
  },
  { format: 'javac', pattern: /^\[ERROR\] (\S+\.(?:java|kt)):\[(\d+),\d+\] (.*)$/, failure: (m) => ({ file: m[1], line: Number(m[2]), message: clip(m[3]) }) },
  {
    format: 'tsc',
    pattern: /^(\S+\.[cm]?[jt]sx?)\((\d+),\d+\): error (TS\d+: .*)$/,
    failure: (m) => ({ file: m[1], line: Number(m[2]), message: clip(m[3]) }),
  },
  { format: 'tsc', pattern: /^(\S+\.[cm]?[jt]sx?):(\d+):\d+ - error (TS\d+: .*)$/, failure: (m) => ({ file: m[1], line: Number(m[2]), message: clip(m[3]) }) },
  {
    format: 'compiler',
    pattern: /^\s*(\S+\.(?:go|py|rs|c|h|cpp|kt|java|swift)):(\d+)(?::\d+)?: (.*)$/,
    failure: (m) => ({ file: m[1], line: Number(m[2]), message: clip(m[3]) }),
  },
];

const NO_TESTS: readonly RegExp[] = [
  /^no tests ran\b/m,
  /^=+ no tests ran/m,
  /^collected 0 items/m,
  /^Ran 0 tests in /m,
  /^# tests 0$/m,
  /^ℹ tests 0$/m,
  /^Tests run: 0, Failures: 0/m,
  /^No tests found/m,
  /^testing: warning: no tests to run/m,
];

/** `go test -json` events: a failed test by package and name; no test event at all means no test ran. */
function goTestJson(lines: readonly string[]): ParsedOutput | undefined {
  const failures: ParsedFailure[] = [];
  let events = 0;
  let tests = 0;
  for (const line of lines) {
    if (!line.startsWith('{"') || line.length > MAX_LINE) continue;
    let event: { Action?: unknown; Package?: unknown; Test?: unknown };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      continue;
    }
    if (typeof event.Action !== 'string') continue;
    events += 1;
    if (typeof event.Test !== 'string') continue;
    if (event.Action === 'run') tests += 1;
    if (event.Action === 'fail' && failures.length < MAX_FAILURES) failures.push({ test: `${String(event.Package)}.${event.Test}` });
  }
  return events > 0 ? { failures, noTests: tests === 0, format: 'go test -json' } : undefined;
}

/** ESLint's stylish format: a file path line, then `  line:col  error  message  rule` lines under it. */
function eslintStylish(lines: readonly string[]): ParsedFailure[] {
  const failures: ParsedFailure[] = [];
  let file: string | undefined;
  for (const line of lines) {
    if (line.length > MAX_LINE) continue;
    if (/^\S.*\.[cm]?[jt]sx?$/.test(line)) file = line.trim();
    const m = /^\s+(\d+):\d+\s+error\s+(.*?)\s{2,}(\S+)$/.exec(line);
    if (m && file) failures.push({ file, line: Number(m[1]), message: clip(`${m[2]} (${m[3]})`) });
  }
  return failures;
}

/** The failures a command's output names, with paths under `checkoutRoot` made relative to the repository. */
export function parseOutput(output: string, checkoutRoot?: string): ParsedOutput {
  const lines = output.split(/\r?\n/);
  const relative = (path: string | undefined) => (path && checkoutRoot && path.startsWith(`${checkoutRoot}/`) ? path.slice(checkoutRoot.length + 1) : path);
  const json = goTestJson(lines);
  const parsed: ParsedOutput = json ?? { failures: [], noTests: NO_TESTS.some((p) => p.test(output)) };
  if (!json) {
    const seen = new Set<string>();
    for (const line of lines) {
      if (line.length > MAX_LINE || parsed.failures.length >= MAX_FAILURES) continue;
      for (const rule of LINE_RULES) {
        const m = rule.pattern.exec(line);
        if (!m) continue;
        const failure = rule.failure(m);
        const key = `${failure.test ?? ''}|${failure.file ?? ''}|${failure.line ?? ''}`;
        if (!seen.has(key)) {
          seen.add(key);
          parsed.failures.push(failure);
          parsed.format ??= rule.format;
        }
        break;
      }
    }
    const stylish = eslintStylish(lines);
    if (stylish.length > 0) {
      parsed.failures.push(...stylish.slice(0, MAX_FAILURES - parsed.failures.length));
      parsed.format ??= 'eslint';
    }
  }
  parsed.failures = parsed.failures.map((f) => {
    const file = relative(f.file);
    return Object.fromEntries(Object.entries({ ...f, file }).filter(([, v]) => v !== undefined)) as ParsedFailure;
  });
  return parsed;
}
