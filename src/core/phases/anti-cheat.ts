import { defaultPathRules, type PathRules } from '../paths/path-rules.js';

/**
 * "Green by cheating" detectors over a git-style unified diff: skipped or
 * disabled tests, deleted test files, assertions removed without replacement, skip flags added to
 * build files, CI configuration edits and a few tell-tale placeholders. They are a first line of
 * defence before a reviewer, not a proof: pattern-based, tuned so that close look-alikes
 * (`@JsonIgnore`, `stream.skip(2)`, `eslint || true`) stay quiet.
 */

export type CheatRule =
  | 'test-disabled'
  | 'test-file-deleted'
  | 'assertion-removed'
  | 'test-skip-flag'
  | 'ci-config-changed'
  | 'suspicious-change';

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
const DOC_FILE = /\.(md|markdown|rst|txt|adoc|asciidoc)$/i;

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

const ASSERTION =
  /(?:^|[^\w.$])assert\b(?!\s*=)|\bassert[A-Z_]\w*\s*\(|\.assert\w*\s*\(|\bexpect\s*\(|\brequire\.[A-Z]\w*\s*\(|\bassert\.\w+\s*\(/;
const COMMENT_OR_IMPORT = /^\s*(?:\/\/|#|\*|\/\*|import\b|from\s+\S+\s+import\b)/;

/** The two path questions the detectors ask; a path the rules refuse to judge is neither. */
function pathKinds(rules: PathRules): { isTest(path: string): boolean; isCi(path: string): boolean } {
  const safe = (test: (path: string) => boolean) => (path: string) => {
    try {
      return test(path);
    } catch {
      return false;
    }
  };
  return { isTest: safe(rules.isTest), isCi: safe(rules.isCi) };
}

function isBuildPath(path: string, isCiPath: (path: string) => boolean): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return (
    isCiPath(path) ||
    /^(?:pom\.xml|build\.xml|build\.gradle(?:\.kts)?|settings\.gradle(?:\.kts)?|gradle\.properties|package\.json|[Mm]akefile|GNUmakefile|justfile|Taskfile\.ya?ml|tox\.ini|setup\.cfg|pytest\.ini|pyproject\.toml|noxfile\.py|Rakefile|Cargo\.toml)$/.test(base) ||
    /^(?:jest|vitest|karma|playwright|cypress)\.config\.[cm]?[jt]s$|^\.mocharc(?:\.\w+)?$|^karma\.conf\.js$/.test(base) ||
    /(?:^|\/)\.mvn\//.test(path) ||
    /\.(?:sh|bash|mk)$/.test(base)
  );
}

/** Run every detector over a unified diff; findings come in diff order. Tests and CI are told apart by `rules`. */
export function detectCheats(patch: string, rules: PathRules = defaultPathRules()): CheatReport {
  const { isTest: isTestPath, isCi: isCiPath } = pathKinds(rules);
  const findings: CheatFinding[] = [];
  for (const file of parseUnifiedDiff(patch)) {
    const add = (rule: CheatRule, severity: CheatFinding['severity'], snippet: string, line?: number) => {
      findings.push({ rule, path: file.path, ...(line !== undefined ? { line } : {}), snippet: clip(snippet), severity });
    };

    if (isCiPath(file.path) || (file.oldPath !== undefined && isCiPath(file.oldPath))) {
      add('ci-config-changed', 'HIGH', file.deleted ? 'CI configuration deleted' : 'CI configuration changed');
    }
    if (file.deleted && isTestPath(file.path)) {
      add('test-file-deleted', 'HIGH', 'test file deleted');
      continue;
    }

    const removedTexts = new Map<string, number>();
    for (const hunk of file.hunks) for (const l of hunk) if (l.kind === '-') bump(removedTexts, l.text.trim());
    /** An added line that only moved (same text removed elsewhere in the file) is not new. */
    const isNew = (l: DiffLine) => {
      const key = l.text.trim();
      const left = removedTexts.get(key) ?? 0;
      if (left > 0) {
        removedTexts.set(key, left - 1);
        return false;
      }
      return true;
    };
    const doc = DOC_FILE.test(file.path);
    const build = isBuildPath(file.path, isCiPath);

    for (const hunk of file.hunks) {
      for (const l of hunk) {
        if (l.kind !== '+' || doc || !isNew(l)) continue;
        const skip = SKIP_PATTERNS.find(({ pattern }) => pattern.test(l.text));
        if (skip) add('test-disabled', skip.severity, l.text, l.newLine);
        if (build && (BUILD_SKIP_PATTERNS.some((p) => p.test(l.text)) || (OR_TRUE.test(l.text) && TEST_WORD.test(l.text)))) {
          add('test-skip-flag', 'HIGH', l.text, l.newLine);
        }
        if (SUSPICIOUS_PATTERNS.some((p) => p.test(l.text))) add('suspicious-change', 'MEDIUM', l.text, l.newLine);
      }
      if (isTestPath(file.path) && !doc) {
        const isAssertion = (l: DiffLine) => !COMMENT_OR_IMPORT.test(l.text) && ASSERTION.test(l.text);
        const removed = hunk.filter((l) => l.kind === '-' && isAssertion(l));
        const added = hunk.filter((l) => l.kind === '+' && isAssertion(l)).length;
        for (const l of removed.slice(added)) add('assertion-removed', 'HIGH', l.text, l.oldLine);
      }
    }
  }
  return { findings };
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > SNIPPET_MAX ? `${trimmed.slice(0, SNIPPET_MAX - 3)}...` : trimmed;
}

/**
 * A tolerant parser of git-style unified diffs: `diff --git` headers (new, deleted, renamed,
 * binary files) or bare `---`/`+++` pairs, and hunks read by their line counts, so a removed line
 * that starts with `--` is not taken for a header.
 */
export function parseUnifiedDiff(patch: string): FileDiff[] {
  const files: FileDiff[] = [];
  const lines = patch.replace(/\r\n/g, '\n').split('\n');
  let file: FileDiff | undefined;
  let oldLeft = 0;
  let newLeft = 0;
  let oldNo = 0;
  let newNo = 0;
  let hunk: DiffLine[] | undefined;

  const start = (path: string, oldPath?: string) => {
    file = { path, ...(oldPath !== undefined && oldPath !== path ? { oldPath } : {}), deleted: false, hunks: [] };
    files.push(file);
    hunk = undefined;
  };

  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (hunk && (oldLeft > 0 || newLeft > 0)) {
      const kind = line[0];
      if (kind === '\\') continue;
      if (kind === '+') {
        hunk.push({ kind: '+', text: line.slice(1), newLine: newNo++ });
        newLeft -= 1;
        continue;
      }
      if (kind === '-') {
        hunk.push({ kind: '-', text: line.slice(1), oldLine: oldNo++ });
        oldLeft -= 1;
        continue;
      }
      if (kind === ' ' || line === '') {
        hunk.push({ kind: ' ', text: line.slice(1), oldLine: oldNo++, newLine: newNo++ });
        oldLeft -= 1;
        newLeft -= 1;
        continue;
      }
      hunk = undefined; // malformed counts: fall through to header parsing
    }
    const git = /^diff --git (?:"?a\/(.*?)"?) (?:"?b\/(.*?)"?)$/.exec(line);
    if (git) {
      start(unquote(git[2]), unquote(git[1]));
      continue;
    }
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      const oldPath = headerPath(line.slice(4));
      const newPath = headerPath(lines[i + 1].slice(4));
      if (!file || file.hunks.length > 0) start(newPath ?? oldPath ?? '', oldPath);
      if (file) {
        if (newPath === undefined && oldPath !== undefined) {
          file.deleted = true;
          file.path = oldPath;
        } else if (newPath !== undefined) file.path = newPath;
      }
      i += 1;
      continue;
    }
    if (!file) continue;
    if (line.startsWith('deleted file mode')) file.deleted = true;
    else if (line.startsWith('rename from ')) file.oldPath = unquote(line.slice('rename from '.length));
    else if (line.startsWith('rename to ')) file.path = unquote(line.slice('rename to '.length));
    else {
      const h = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (h) {
        oldNo = Number(h[1]);
        oldLeft = h[2] === undefined ? 1 : Number(h[2]);
        newNo = Number(h[3]);
        newLeft = h[4] === undefined ? 1 : Number(h[4]);
        hunk = [];
        file.hunks.push(hunk);
      }
    }
  }
  return files;
}

function headerPath(text: string): string | undefined {
  const path = unquote(text.split('\t')[0].trim());
  if (path === '/dev/null') return undefined;
  return path.replace(/^[ab]\//, '');
}

function unquote(text: string): string {
  return text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1).replace(/\\(.)/g, '$1') : text;
}
