import type { PathRules } from '../paths/path-rules.js';

/**
 * "Green by cheating" detectors over a git-style unified diff: skipped or
 * disabled tests, deleted test files, assertions removed without replacement, skip flags added to
 * build files, CI configuration edits and a few tell-tale placeholders. They are a first line of
 * defence before a reviewer, not a proof: pattern-based, tuned so that close look-alikes
 * (`@JsonIgnore`, `stream.skip(2)`, `eslint || true`) stay quiet.
 */

export type CheatRule =
  'test-disabled' | 'test-file-deleted' | 'assertion-removed' | 'test-skip-flag' | 'ci-config-changed' | 'ci-script-changed' | 'suspicious-change';

export interface CheatFinding {
  rule: CheatRule;
  path: string;
  /** New-file line for added lines, old-file line for removed ones; absent for whole-file findings. */
  line?: number;
  snippet: string;
  severity: 'HIGH' | 'MEDIUM';
}

export interface CheatReport {
  findings: CheatFinding[];
}

interface DiffLine {
  kind: '+' | '-' | ' ';
  text: string;
  oldLine?: number;
  newLine?: number;
}

interface FileDiff {
  path: string;
  oldPath?: string;
  deleted: boolean;
  hunks: DiffLine[][];
}

const SNIPPET_MAX = 160;

const SKIP_PATTERNS: { pattern: RegExp; severity: CheatFinding['severity'] }[] = [
  // Java / Kotlin (JUnit 4 and 5, TestNG via enabled=false)
  { pattern: /@(?:[\w.]+\.)?Disabled\b(?!\w)/, severity: 'HIGH' },
  { pattern: /@(?:[\w.]+\.)?Ignore\b/, severity: 'HIGH' },
  { pattern: /@(?:[\w.]+\.)?Disabled(?:If|On|For)\w*/, severity: 'MEDIUM' },
  { pattern: /@Test\s*\([^)]*\benabled\s*=\s*false/, severity: 'HIGH' },
  { pattern: /\bassume(?:True|That)?\s*\(\s*false\s*\)/, severity: 'HIGH' },
  { pattern: /\bassumeFalse\s*\(\s*true\s*\)/, severity: 'HIGH' },
  // JavaScript / TypeScript (jest, vitest, mocha, jasmine)
  { pattern: /\b(?:it|test|describe|context|suite|specify)\.skip(?:If)?\s*\(/, severity: 'HIGH' },
  { pattern: /\b(?:xit|xtest|xdescribe|xcontext|xspecify)\s*\(/, severity: 'HIGH' },
  { pattern: /\b(?:it|test|describe|context|suite)\.only\s*\(/, severity: 'HIGH' },
  { pattern: /(?:^|[^\w.$])(?:fit|fdescribe)\s*\(/, severity: 'HIGH' },
  { pattern: /\bthis\.skip\s*\(\s*\)/, severity: 'HIGH' },
  // Python
  { pattern: /@pytest\.mark\.skip(?:if)?\b/, severity: 'HIGH' },
  { pattern: /@pytest\.mark\.xfail\b/, severity: 'MEDIUM' },
  { pattern: /\bpytest\.skip\s*\(/, severity: 'HIGH' },
  { pattern: /@unittest\.skip(?:If|Unless)?\b/, severity: 'HIGH' },
  { pattern: /\bself\.skipTest\s*\(/, severity: 'HIGH' },
  // Go, Rust
  { pattern: /\b[tb]\.Skip(?:Now|f)?\s*\(/, severity: 'HIGH' },
  { pattern: /#\[ignore\b/, severity: 'HIGH' },
];

const BUILD_SKIP_PATTERNS: RegExp[] = [
  /-DskipTests\b/,
  /\bmaven\.test\.skip\b/,
  /<skipTests>\s*true/i,
  /\bskipTests\s*[=:]\s*true\b/,
  /--passWithNoTests\b/,
  /\bpassWithNoTests\s*:\s*true\b/,
  /\btestFailureIgnore\b/,
  /\bignoreFailures\s*(?:=\s*)?true\b/,
  /(?:^|\s)-x\s+:?(?:\w+:)*test\b/,
  /--exclude-task\s+:?(?:\w+:)*test\b/,
];
/** `|| true` (or `|| exit 0`, `|| :`) on a line that runs tests. */
const OR_TRUE = /\|\|\s*(?:true\b|exit\s+0\b|:(?=\s|$|"|'))/;
const TEST_WORD = /\btest(?:s)?\b|\bjest\b|\bvitest\b|\bpytest\b|\bmocha\b|\bgo test\b|\bmvn\b.*\b(?:verify|test)\b/i;

const SUSPICIOUS_PATTERNS: RegExp[] = [
  /\bassertTrue\s*\(\s*true\s*\)/,
  /\bassertFalse\s*\(\s*false\s*\)/,
  /\bexpect\s*\(\s*true\s*\)\s*\.\s*toBe(?:Truthy)?\s*\(\s*(?:true)?\s*\)/,
  /^\s*assert\s*\(?\s*True\s*\)?\s*$/,
  /catch\s*\(\s*(?:final\s+)?(?:Exception|Throwable|RuntimeException)\s+ignored\s*\)/,
  /^\s*except\s*(?:\w*Exception\s*)?:\s*pass\b/,
  /\bTODO\b:?\s*fix\s+(?:it\s+|this\s+)?later/i,
];

const ASSERTION = /(?:^|[^\w.$])assert\b(?!\s*=)|\bassert[A-Z_]\w*\s*\(|\.assert\w*\s*\(|\bexpect\s*\(|\brequire\.[A-Z]\w*\s*\(|\bassert\.\w+\s*\(/;
const COMMENT_OR_IMPORT = /^\s*(?:\/\/|#|\*|\/\*|import\b|from\s+\S+\s+import\b)/;

/** The path questions the detectors ask of the run's path rules. */
interface PathKinds {
  isTest(path: string): boolean;
  isCi(path: string): boolean;
  isDoc(path: string): boolean;
}

/** The path kinds, asked of `rules`; a path the rules refuse to judge is none of them. */
function pathKinds(rules: PathRules): PathKinds {
  const safe = (test: (path: string) => boolean) => (path: string) => {
    try {
      return test(path);
    } catch {
      return false;
    }
  };
  return { isTest: safe(rules.isTest), isCi: safe(rules.isCi), isDoc: safe(rules.isDoc) };
}

function isBuildPath(path: string, isCiPath: (path: string) => boolean): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return (
    isCiPath(path) ||
    /^(?:pom\.xml|build\.xml|build\.gradle(?:\.kts)?|settings\.gradle(?:\.kts)?|gradle\.properties|package\.json|[Mm]akefile|GNUmakefile|justfile|Taskfile\.ya?ml|tox\.ini|setup\.cfg|pytest\.ini|pyproject\.toml|noxfile\.py|Rakefile|Cargo\.toml)$/.test(
      base,
    ) ||
    /^(?:jest|vitest|karma|playwright|cypress)\.config\.[cm]?[jt]s$|^\.mocharc(?:\.\w+)?$|^karma\.conf\.js$/.test(base) ||
    /(?:^|\/)\.mvn\//.test(path) ||
    /\.(?:sh|bash|mk)$/.test(base)
  );
}

/** A package.json whose `scripts` CI runs (npm test, npm ci's lifecycle hooks). */
const PACKAGE_JSON = /(?:^|\/)package\.json$/;

/**
 * The scripts a change to a package.json adds, edits or removes (CI runs them on the pushed
 * branch: `npm test`, and the install hooks of `npm ci`), as HIGH findings. Read from both
 * sides' bytes, not the diff, so a change far from the `"scripts"` line is seen too. A side
 * that does not parse as JSON is a finding of its own: its scripts cannot be checked.
 */
export function packageScriptCheats(path: string, before: Uint8Array | undefined, after: Uint8Array | undefined): CheatFinding[] {
  if (!PACKAGE_JSON.test(path) || after === undefined) return [];
  const scriptsOf = (bytes: Uint8Array | undefined): Record<string, unknown> | 'invalid' => {
    if (bytes === undefined) return {};
    try {
      const parsed = JSON.parse(new TextDecoder().decode(bytes)) as { scripts?: unknown };
      return parsed.scripts && typeof parsed.scripts === 'object' ? (parsed.scripts as Record<string, unknown>) : {};
    } catch {
      return 'invalid';
    }
  };
  const old = scriptsOf(before);
  const now = scriptsOf(after);
  if (now === 'invalid') return [{ rule: 'ci-script-changed', path, snippet: 'package.json does not parse: its scripts cannot be checked', severity: 'HIGH' }];
  const was = old === 'invalid' ? {} : old;
  const names = [...new Set([...Object.keys(was), ...Object.keys(now)])].filter((k) => JSON.stringify(was[k]) !== JSON.stringify(now[k])).sort();
  return names.map((name) => ({
    rule: 'ci-script-changed' as const,
    path,
    snippet: clip(`script "${name}" ${!(name in was) ? 'added' : !(name in now) ? 'removed' : 'changed'}: ${String(now[name] ?? was[name])}`),
    severity: 'HIGH' as const,
  }));
}

type AddFinding = (rule: CheatRule, severity: CheatFinding['severity'], snippet: string, line?: number) => void;

/** Run every detector over a unified diff; findings come in diff order. Tests, CI and docs are told apart by `rules`. */
export function detectCheats(patch: string, rules: PathRules): CheatReport {
  const kinds = pathKinds(rules);
  const findings: CheatFinding[] = [];
  for (const file of parseUnifiedDiff(patch)) {
    const add: AddFinding = (rule, severity, snippet, line) => {
      findings.push({ rule, path: file.path, ...(line !== undefined ? { line } : {}), snippet: clip(snippet), severity });
    };
    fileCheats(file, kinds, add);
  }
  return { findings };
}

function fileCheats(file: FileDiff, kinds: PathKinds, add: AddFinding): void {
  if (kinds.isCi(file.path) || (file.oldPath !== undefined && kinds.isCi(file.oldPath))) {
    add('ci-config-changed', 'HIGH', file.deleted ? 'CI configuration deleted' : 'CI configuration changed');
  }
  if (file.deleted && kinds.isTest(file.path)) {
    add('test-file-deleted', 'HIGH', 'test file deleted');
    return;
  }
  const doc = kinds.isDoc(file.path);
  const build = isBuildPath(file.path, kinds.isCi);
  const testFile = kinds.isTest(file.path) && !doc;
  const isNew = newLineFilter(file);
  for (const hunk of file.hunks) {
    if (!doc) for (const l of hunk) if (l.kind === '+' && isNew(l)) addedLineCheats(l, build, add);
    if (testFile) removedAssertions(hunk, add);
  }
}

/** An added line that only moved (same text removed elsewhere in the file) is not new. */
function newLineFilter(file: FileDiff): (l: DiffLine) => boolean {
  const removedTexts = new Map<string, number>();
  for (const hunk of file.hunks) for (const l of hunk) if (l.kind === '-') bump(removedTexts, l.text.trim());
  return (l) => {
    const key = l.text.trim();
    const left = removedTexts.get(key) ?? 0;
    if (left === 0) return true;
    removedTexts.set(key, left - 1);
    return false;
  };
}

function addedLineCheats(l: DiffLine, build: boolean, add: AddFinding): void {
  const skip = SKIP_PATTERNS.find(({ pattern }) => pattern.test(l.text));
  if (skip) add('test-disabled', skip.severity, l.text, l.newLine);
  if (build && (BUILD_SKIP_PATTERNS.some((p) => p.test(l.text)) || (OR_TRUE.test(l.text) && TEST_WORD.test(l.text)))) {
    add('test-skip-flag', 'HIGH', l.text, l.newLine);
  }
  if (SUSPICIOUS_PATTERNS.some((p) => p.test(l.text))) add('suspicious-change', 'MEDIUM', l.text, l.newLine);
}

/** Assertions a hunk removes beyond those it adds. */
function removedAssertions(hunk: DiffLine[], add: AddFinding): void {
  const isAssertion = (l: DiffLine) => !COMMENT_OR_IMPORT.test(l.text) && ASSERTION.test(l.text);
  const removed = hunk.filter((l) => l.kind === '-' && isAssertion(l));
  const added = hunk.filter((l) => l.kind === '+' && isAssertion(l)).length;
  for (const l of removed.slice(added)) add('assertion-removed', 'HIGH', l.text, l.oldLine);
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > SNIPPET_MAX ? `${trimmed.slice(0, SNIPPET_MAX - 3)}...` : trimmed;
}

const GIT_HEADER = /^diff --git (?:"?a\/(.*?)"?) (?:"?b\/(.*?)"?)$/;
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The parser's state: the files so far, the current file and hunk, and the hunk's line counts left. */
class DiffReader {
  readonly files: FileDiff[] = [];
  private file: FileDiff | undefined;
  private hunk: DiffLine[] | undefined;
  private oldLeft = 0;
  private newLeft = 0;
  private oldNo = 0;
  private newNo = 0;

  start(path: string, oldPath?: string): void {
    this.file = { path, ...(oldPath !== undefined && oldPath !== path ? { oldPath } : {}), deleted: false, hunks: [] };
    this.files.push(this.file);
    this.hunk = undefined;
  }

  /** Take a line of the open hunk while its counts last; false when the line is not one. */
  hunkLine(line: string): boolean {
    const hunk = this.hunk;
    if (!hunk || (this.oldLeft <= 0 && this.newLeft <= 0)) return false;
    const kind = line[0];
    if (kind === '\\') return true;
    if (kind === '+') {
      hunk.push({ kind: '+', text: line.slice(1), newLine: this.newNo++ });
      this.newLeft -= 1;
    } else if (kind === '-') {
      hunk.push({ kind: '-', text: line.slice(1), oldLine: this.oldNo++ });
      this.oldLeft -= 1;
    } else if (kind === ' ' || line === '') {
      hunk.push({ kind: ' ', text: line.slice(1), oldLine: this.oldNo++, newLine: this.newNo++ });
      this.oldLeft -= 1;
      this.newLeft -= 1;
    } else {
      this.hunk = undefined; // malformed counts: the line is read as a header
      return false;
    }
    return true;
  }

  /** A `---`/`+++` pair: a new file unless it names the one a `diff --git` header opened. */
  headerPair(oldText: string, newText: string): void {
    const oldPath = headerPath(oldText);
    const newPath = headerPath(newText);
    if (!this.file || this.file.hunks.length > 0) this.start(newPath ?? oldPath ?? '', oldPath);
    const file = this.file!;
    if (newPath === undefined && oldPath !== undefined) {
      file.deleted = true;
      file.path = oldPath;
    } else if (newPath !== undefined) file.path = newPath;
  }

  /** Extended header lines and hunk headers of the current file. */
  fileLine(line: string): void {
    const file = this.file;
    if (!file) return;
    if (line.startsWith('deleted file mode')) file.deleted = true;
    else if (line.startsWith('rename from ')) file.oldPath = unquote(line.slice('rename from '.length));
    else if (line.startsWith('rename to ')) file.path = unquote(line.slice('rename to '.length));
    else this.hunkHeader(line, file);
  }

  private hunkHeader(line: string, file: FileDiff): void {
    const h = HUNK_HEADER.exec(line);
    if (!h) return;
    this.oldNo = Number(h[1]);
    this.oldLeft = h[2] === undefined ? 1 : Number(h[2]);
    this.newNo = Number(h[3]);
    this.newLeft = h[4] === undefined ? 1 : Number(h[4]);
    this.hunk = [];
    file.hunks.push(this.hunk);
  }
}

/**
 * A tolerant parser of git-style unified diffs: `diff --git` headers (new, deleted, renamed,
 * binary files) or bare `---`/`+++` pairs, and hunks read by their line counts, so a removed line
 * that starts with `--` is not taken for a header.
 */
export function parseUnifiedDiff(patch: string): FileDiff[] {
  const reader = new DiffReader();
  const lines = patch.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (reader.hunkLine(line)) continue;
    const git = GIT_HEADER.exec(line);
    if (git) reader.start(unquote(git[2]), unquote(git[1]));
    else if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      reader.headerPair(line.slice(4), lines[i + 1].slice(4));
      i += 1;
    } else reader.fileLine(line);
  }
  return reader.files;
}

function headerPath(text: string): string | undefined {
  const path = unquote(text.split('\t')[0].trim());
  if (path === '/dev/null') return undefined;
  return path.replace(/^[ab]\//, '');
}

function unquote(text: string): string {
  return text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1).replace(/\\(.)/g, '$1') : text;
}
