import { MAX_FAILURES, type ParsedFailure } from './output-failures.js';

/**
 * JUnit XML test reports (docs/architecture.md, "Verification"): the format Maven Surefire and
 * Failsafe, Gradle, pytest `--junitxml`, jest-junit and most CI tools write. A runner collects the
 * reports a test command wrote (`isJUnitReportPath`, bounded by `JUNIT_LIMITS`) and the failures
 * they name join the ones read from the command's output. The parser is a bounded scan for
 * `<testcase>` elements and their `<failure>` or `<error>` children, not a general XML parser: a
 * report is data written by the project's tools and is never trusted for more than names,
 * places and messages.
 */

/** What a runner reads of the reports one command wrote. */
export const JUNIT_LIMITS = Object.freeze({
  /** Report files read per command; the newest first. */
  maxFiles: 20,
  /** Bytes read of one report; the rest is ignored. */
  maxBytes: 1024 * 1024,
  /** Directory entries a runner visits looking for reports. */
  maxEntries: 50_000,
});

/** Directories never searched for reports: dependencies and VCS data. */
export const JUNIT_SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', 'node_modules', '.venv', 'venv', '__pycache__', 'vendor', '.gradle', '.m2']);

/**
 * Whether a path (relative, `/`-separated) is where a test tool writes a JUnit report: Surefire
 * and Failsafe (`target/*-reports/TEST-*.xml`), Gradle (`build/test-results/**.xml`), and files
 * named like a JUnit report (`junit.xml`, `junit-results.xml`, `TEST-*.xml`, `*.junit.xml`).
 */
export function isJUnitReportPath(path: string): boolean {
  if (!path.endsWith('.xml')) return false;
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (/^TEST-.+\.xml$/.test(name)) return true;
  if (/(^|[._-])junit([._-]|\.xml$)/i.test(name)) return true;
  return /(^|\/)build\/test-results\//.test(path);
}

const MAX_MESSAGE = 300;

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (whole, entity: string) => {
    if (entity.startsWith('#x')) return safeCodePoint(Number.parseInt(entity.slice(2), 16), whole);
    if (entity.startsWith('#')) return safeCodePoint(Number.parseInt(entity.slice(1), 10), whole);
    return ENTITIES[entity] ?? whole;
  });
}

function safeCodePoint(code: number, fallback: string): string {
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : fallback;
}

/** The attributes of one start tag (bounded: the tag is at most a few KiB, see `TESTCASE`). */
function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([\w:.-]{1,64})\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) out[m[1]] = decode(m[2] ?? m[3] ?? '');
  return out;
}

const clip = (text: string) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > MAX_MESSAGE ? `${one.slice(0, MAX_MESSAGE - 3)}...` : one;
};

/** `<testcase ...>` or `<testcase .../>`; attribute text bounded so that hostile input stays linear. */
const TESTCASE = /<testcase\b([^>]{0,4096}?)(\/?)>/g;
const FAILURE = /<(failure|error)\b([^>]{0,4096}?)(\/?)>([^<]{0,2000})?/;

export interface JUnitReport {
  /** Test cases the report lists (`<testcase>` elements). */
  tests: number;
  failures: ParsedFailure[];
}

/**
 * The test cases of a JUnit report and the failed ones: each `<testcase>` whose body (up to its
 * `</testcase>`) holds a `<failure>` or `<error>`, named `classname.name`, with its `file` and
 * `line` when the tool wrote them, and the failure's `message` (or the first line of its text).
 * `<skipped>` cases count as tests, not failures. Bounded by `JUNIT_LIMITS.maxBytes` of input.
 */
export function parseJUnitXml(xml: string): JUnitReport {
  const text = xml.length > JUNIT_LIMITS.maxBytes ? xml.slice(0, JUNIT_LIMITS.maxBytes) : xml;
  const failures: ParsedFailure[] = [];
  let tests = 0;
  for (const m of text.matchAll(TESTCASE)) {
    tests += 1;
    if (m[2] === '/' || failures.length >= MAX_FAILURES) continue;
    const start = (m.index ?? 0) + m[0].length;
    const end = text.indexOf('</testcase>', start);
    const body = text.slice(start, end < 0 ? Math.min(text.length, start + 8192) : end);
    const f = FAILURE.exec(body);
    if (!f) continue;
    const attrs = attributes(m[1]);
    const failure = attributes(f[2]);
    const detail = decode(f[4] ?? '')
      .split('\n')
      .find((l) => l.trim() !== '');
    const name = [attrs.classname, attrs.name].filter(Boolean).join('.');
    const line = Number(attrs.line);
    const message = failure.message || detail || failure.type;
    failures.push({
      ...(name ? { test: name } : {}),
      ...(attrs.file ? { file: attrs.file } : {}),
      ...(Number.isInteger(line) && line > 0 ? { line } : {}),
      ...(message ? { message: clip(message) } : {}),
    });
  }
  return { tests, failures };
}
