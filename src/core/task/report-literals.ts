import type { SearchTerm } from './task-contract.js';

/** Shorter quoted text is a word, not a message; longer is a paste, not something the code holds verbatim. */
const MIN_LITERAL = 4;
const MAX_LITERAL = 200;

/** Backticked text that is not a plain name: a message with spaces, a flag, a rule id with dashes. */
const BACKTICKED_SPAN = /`([^`\n]{4,200})`/g;
/** Double-quoted text with a space or punctuation in it (a message); single quotes are too often apostrophes. */
const DOUBLE_QUOTED = /"([^"\n]{4,200})"/g;
/** A CLI flag written in prose: `--no-cache`, `--max-line-length`. */
const CLI_FLAG = /(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?![\w-])/g;
/** The message of an exception line: `ValueError: bad input`, `java.lang.IllegalStateException: closed`, `Error: boom`. */
const EXCEPTION_LINE = /^[ \t]*(?:Caused by:[ \t]*)?(?:[\w$]+\.)*[A-Z][\w$]*(?:Error|Exception|Warning|Failure|Panic)\b:[ \t]+(.{4,200}?)\s*$/gm;
const EXCEPTION_PREFIX = /^(?:[\w$]+\.)*[A-Z][\w$]*(?:Error|Exception|Warning|Failure)\b:[ \t]+(.+)$/;
const PANIC_LINE = /^[ \t]*panic:[ \t]+(.{4,200}?)\s*$/gm;

/** Python `File "x.py", line N`; Java/Kotlin `at a.b.C.m(C.java:12)`; any `path/x.go:12`, `(src/x.ts:3:4)`. */
const PY_FRAME = /File "([^"\n]+\.py)", line \d+/g;
const JVM_FRAME = /\bat\s+((?:[\w$]+\.)+)([\w$]+)\.[\w$<>]+\(([\w$]+\.(?:java|kt|scala|groovy)):\d+\)/g;
const PATH_LINE =
  /(?<![\w.@/~-])((?:[A-Za-z]:)?[\w.@~/-]*[\w@-]\.(?:go|ts|tsx|mts|cts|js|jsx|mjs|cjs|rs|rb|php|c|cc|cpp|h|hpp|cs|swift|py|java|kt|scala|ex|exs)):\d+(?::\d+)?/g;

type Add = (term: string, kind: SearchTerm['kind'], source: string) => void;

/** Frames and literals kept from one report: the first ones are where the trace starts and what the report leads with; more would crowd out its names. */
export const MAX_FRAME_TERMS = 16;
export const MAX_LITERAL_TERMS = 16;

/** A literal worth searching verbatim: not a plain identifier (those are symbols), not a URL, with some letters in it. */
function isMessageLike(text: string): boolean {
  const t = text.trim();
  if (t.length < MIN_LITERAL || t.length > MAX_LITERAL || t.includes('://')) return false;
  if (/^[A-Za-z_$][\w$]*$/.test(t)) return false;
  return /[A-Za-z]{2}/.test(t);
}

/** A message printed as a repr (`KeyError: 'x y'`) is searched without its quotes. */
function unquote(text: string): string {
  return /^(['"]).*\1$/.test(text) && text.length > 2 ? text.slice(1, -1) : text;
}

/** Strips a frame path of what is not in the repository: a URL scheme, a bundler prefix. */
function framePath(raw: string): string {
  return raw
    .replace(/^(?:file|webpack):\/\/\/?/, '')
    .replace(/^\/{2,}/, '')
    .replace(/^\.\//, '');
}

/**
 * Stack-trace frames of a bug report, as file paths: Python `File "…/pkg/mod.py", line 3`,
 * JVM `at com.acme.Foo.bar(Foo.java:12)` (the package gives the directories), and any
 * `path/file.ext:line[:column]` (Go, JavaScript, Rust…). Paths are as written: absolute,
 * inside `site-packages`, or relative; target selection matches them by their longest suffix
 * that names a file of the repository.
 */
export function stackFramePaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PY_FRAME)) out.push(framePath(m[1]));
  for (const m of text.matchAll(JVM_FRAME)) out.push(`${m[1].replace(/\./g, '/')}${m[3]}`);
  for (const m of text.matchAll(PATH_LINE)) if (m[1].includes('/') || /\.(?:go|py|rs|rb|php)$/.test(m[1])) out.push(framePath(m[1]));
  return [...new Set(out)];
}

/**
 * Literals a bug report quotes, to be searched verbatim: backticked text that is not a plain name
 * (a message, `--flag`, `no-unused-vars`), double-quoted messages, CLI flags in prose, and the
 * message of exception lines (`KeyError: 'x'`, `panic: …`). Stack-trace frames become
 * `stack-frame` terms. Linear patterns only; `add` keeps each term once.
 */
export function addReportLiterals(texts: readonly { text: string; source: string }[], add: Add): void {
  const frames = texts.flatMap(({ text, source }) => stackFramePaths(text).map((p) => ({ p, source })));
  for (const { p, source } of frames.slice(0, MAX_FRAME_TERMS)) add(p, 'stack-frame', source);
  const literals: { term: string; source: string }[] = [];
  const keep = (term: string, source: string): void => {
    if (!literals.some((l) => l.term === term)) literals.push({ term, source });
  };
  for (const { text, source } of texts) {
    for (const re of [EXCEPTION_LINE, PANIC_LINE]) for (const m of text.matchAll(re)) if (isMessageLike(m[1])) keep(unquote(m[1].trim()), source);
    for (const m of text.matchAll(BACKTICKED_SPAN)) {
      if (!isMessageLike(m[1]) || /^[\w$.:/@-]+\(\)$/.test(m[1])) continue;
      // `KeyError: 'x'` quoted whole: the message is what the code holds.
      const message = EXCEPTION_PREFIX.exec(m[1].trim())?.[1];
      keep(message && isMessageLike(message) ? unquote(message) : m[1].trim(), source);
    }
    for (const m of text.matchAll(DOUBLE_QUOTED)) if (isMessageLike(m[1]) && /[\s:,;!?-]/.test(m[1])) keep(m[1].trim(), source);
    for (const m of text.matchAll(CLI_FLAG)) keep(m[0], source);
  }
  for (const l of literals.slice(0, MAX_LITERAL_TERMS)) add(l.term, 'literal', l.source);
}

/**
 * The parts of a literal that may stand verbatim in code when the whole does not: the text
 * between quoted or numbered parts a program fills in (`Invalid value for '--count': 'abc'`
 * -> `Invalid value for`), each with at least two words.
 */
export function literalFragments(literal: string): string[] {
  const parts = literal
    .split(/'[^']*'|"[^"]*"|`[^`]*`|\{[^}]*\}|<[^>]*>|%[sdrf]|\b\d[\w.]*|:\s/)
    .map((p) => p.trim().replace(/^[\s:,.;-]+|[\s:,.;-]+$/g, ''))
    .filter((p) => p.length >= 10 && /\w+\W+\w+/.test(p));
  return [...new Set(parts)].filter((p) => p !== literal);
}
