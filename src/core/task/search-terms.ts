import type { SearchTerm } from './task-contract.js';
import { stepSearchParameters, type RecipeStep } from './recipe-steps.js';
import { addImportedNames } from './report-imports.js';
import { addReportLiterals } from './report-literals.js';

/** Enough for target search; more would only dilute the ranking. */
export const MAX_SEARCH_TERMS = 64;
/** Longer tokens are data (hashes, base64), not names. */
const MAX_TOKEN_LENGTH = 256;

const FILE_EXTENSIONS = new Set(
  (
    'java kt kts scala groovy gradle ts tsx mts cts js jsx mjs cjs py pyi go rs rb php cs fs swift c h cc cpp hpp m mm ' +
    'json yaml yml toml xml properties ini cfg conf env md mdx txt sql sh bash html css scss less vue svelte proto lock mod sum'
  ).split(' '),
);
/** Root segments that make a two-segment dotted word a package name (`javax.persistence`). */
const PACKAGE_ROOTS = new Set([
  'com',
  'org',
  'net',
  'io',
  'dev',
  'edu',
  'gov',
  'java',
  'javax',
  'jakarta',
  'android',
  'androidx',
  'kotlin',
  'kotlinx',
  'scala',
  'akka',
]);
/** Product names that look like CamelCase identifiers in prose. */
const PROSE_NAMES = new Set([
  'GitHub',
  'GitLab',
  'JavaScript',
  'TypeScript',
  'PowerShell',
  'PostgreSQL',
  'MySQL',
  'MongoDB',
  'OAuth',
  'YouTube',
  'LinkedIn',
  'macOS',
  'iOS',
  'iPhone',
  'iPad',
  'DevOps',
  'OpenAI',
  'OpenAPI',
  'GraphQL',
  'JetBrains',
  'IntelliJ',
  'WebSocket',
  'NodeJS',
]);

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const QUALIFIED = /^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)+$/;
const SCOPED_PACKAGE = /^@[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*$/i;
const PATH_LIKE = /^[\w.@-]+(?:\/[\w.@-]+)+$/;
const FILE_NAME = /^[\w@-][\w.@-]*$/;
const LOWER_SEGMENT = /^[a-z][a-z0-9_]*$/;
/** Maximal runs of non-separator characters; a single character class, so linear in the text. */
const TOKEN = /[^\s`"'()<>[\]{},;|#!?*=+&^%~\\]+/g;
const MAYBE_NAME = /[A-Z_./@:$]/;
const BACKTICKED = /`([^`\n]{1,256})`/g;
const QUOTED = /(["'])([A-Za-z_$][\w$.:]{0,255})\1/g;

export interface SearchTermInput {
  title: string;
  objective: string;
  steps: readonly RecipeStep[];
}

/**
 * Terms the target search looks for: recipe parameters first (they say exactly what to find),
 * then backticked names, quoted identifiers, stack-trace frames and quoted literals (messages,
 * flags, rule ids; `report-literals.ts`), names the report's code imports (`report-imports.ts`), and names recognisable in plain prose (CamelCase,
 * camelCase, SNAKE_CASE, dotted `Class.method`, package names, file paths). Each term appears
 * once, with the first way it was found. Every pattern is linear, so a 1 MiB body is cheap.
 */
export function deriveSearchTerms(input: SearchTermInput): SearchTerm[] {
  const out: SearchTerm[] = [];
  const seen = new Set<string>();
  const add = (term: string, kind: SearchTerm['kind'], source: string): void => {
    if (term.length < 2 || seen.has(term) || out.length >= MAX_SEARCH_TERMS) return;
    seen.add(term);
    out.push({ term, kind, source });
  };

  input.steps.forEach((step, i) => {
    const at = (key: string) => `steps[${i}].${key}`;
    for (const { key, value } of stepSearchParameters(step)) add(value, 'recipe-parameter', at(key));
  });

  const texts = [
    { text: input.title, source: 'title' },
    { text: input.objective, source: 'objective' },
  ];
  for (const { text, source } of texts) {
    for (const match of text.matchAll(BACKTICKED)) {
      const content = stripCall(match[1].trim());
      if (/\s/.test(content)) continue;
      classify(content, true, source, add);
    }
  }
  for (const { text, source } of texts) {
    for (const match of text.matchAll(QUOTED)) {
      if (out.length >= MAX_SEARCH_TERMS) return out;
      const content = trimPunctuation(match[2]);
      if (seen.has(content)) continue;
      if (IDENTIFIER.test(content) || QUALIFIED.test(content)) add(content, 'quoted-identifier', source);
    }
  }
  addReportLiterals(texts, add);
  addImportedNames(texts, add);
  const tried = new Set<string>();
  for (const { text, source } of texts) {
    for (const match of text.matchAll(TOKEN)) {
      if (out.length >= MAX_SEARCH_TERMS) return out;
      const token = match[0];
      // Plain lower-case words are most of any prose and never names: skip them cheaply.
      if (token.length > MAX_TOKEN_LENGTH || !MAYBE_NAME.test(token) || tried.has(token)) continue;
      tried.add(token);
      if (token.includes('://')) continue;
      classify(trimPunctuation(token), false, source, add);
    }
  }
  return out;
}

type Add = (term: string, kind: SearchTerm['kind'], source: string) => void;

/**
 * Decide what a token names. `explicit` (backticked) tokens count even when they are plain
 * lower-case words; prose tokens need a shape no ordinary word has.
 */
function classify(token: string, explicit: boolean, source: string, add: Add): void {
  if (token.length < 2 || token.length > MAX_TOKEN_LENGTH) return;
  if (SCOPED_PACKAGE.test(token)) return add(token, 'package', source);
  if (token.includes('/')) {
    if (PATH_LIKE.test(token) && !token.includes('//') && (explicit || hasFileExtension(token))) add(token, 'path', source);
    return;
  }
  if (FILE_NAME.test(token) && hasFileExtension(token)) return add(token, 'path', source);
  if (QUALIFIED.test(token)) return classifyQualified(token, explicit, source, add);
  if (IDENTIFIER.test(token) && (explicit || (isNameLike(token) && !PROSE_NAMES.has(token)))) add(token, 'symbol', source);
}

/** A dotted or `::` name: a package (all lower-case dotted parts), or a symbol and its name-like parts. */
function classifyQualified(token: string, explicit: boolean, source: string, add: Add): void {
  const segments = token.split(/\.|::/);
  if (token.includes('.') && segments.every((s) => LOWER_SEGMENT.test(s))) {
    if (explicit || segments.length >= 3 || PACKAGE_ROOTS.has(segments[0])) add(token, 'package', source);
    return;
  }
  // Prose never has `::`; a dotted word counts when a part is name-like or it reads Class.member.
  const classMember = segments.every((seg) => seg.length >= 2) && /^[A-Z]/.test(segments[0]);
  if (!explicit && !token.includes('::') && !classMember && !segments.some(isNameLike)) return;
  add(token, 'symbol', source);
  for (const segment of segments) if (isNameLike(segment) && !PROSE_NAMES.has(segment)) add(segment, 'symbol', source);
}

/** CamelCase (two humps), camelCase, snake_case or SCREAMING_SNAKE: shapes prose words lack. */
function isNameLike(word: string): boolean {
  return (
    /^[A-Z][a-z0-9]+[A-Z]/.test(word) ||
    /^[a-z][a-z0-9]*[A-Z]/.test(word) ||
    /^[A-Z]{2,}[a-z]{2,}/.test(word) ||
    /^_?[a-z][a-z0-9]*_[a-z0-9_]*[a-z0-9]$/.test(word) ||
    /^[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]$/.test(word)
  );
}

function hasFileExtension(token: string): boolean {
  const dot = token.lastIndexOf('.');
  return dot > 0 && dot < token.length - 1 && FILE_EXTENSIONS.has(token.slice(dot + 1).toLowerCase());
}

function stripCall(text: string): string {
  return text.endsWith('()') ? text.slice(0, -2) : text;
}

/** Most path-shaped tokens taken from one text. */
const MAX_PATH_TOKENS = 32;

/**
 * The tokens of a text shaped like a repository path of two segments or more
 * (`internal/transport:`, `src/cli/`), with or without an extension, URLs left out: what may
 * name a directory of the repository. Trailing punctuation and slashes are trimmed.
 */
export function pathTokens(text: string): string[] {
  const out = new Set<string>();
  for (const match of text.matchAll(TOKEN)) {
    if (out.size >= MAX_PATH_TOKENS) break;
    // A run of slashes is never a path: checked first, so trimming the one trailing slash is cheap.
    if (match[0].length > MAX_TOKEN_LENGTH || match[0].includes('//')) continue;
    const trimmed = trimPunctuation(match[0]);
    const token = trimmed.endsWith('/') ? trimmed.slice(0, -1) : trimmed;
    if (PATH_LIKE.test(token)) out.add(token);
  }
  return [...out];
}

/** Sentence punctuation around a token (`exchangeToken.`, `:Foo`). */
function trimPunctuation(token: string): string {
  let start = 0;
  let end = token.length;
  while (start < end && '.:'.includes(token[start])) start++;
  while (end > start && '.:'.includes(token[end - 1])) end--;
  return token.slice(start, end);
}

/** A plain word of the task that may name a function, type or module in the repository. */
export interface TaskWord {
  /** Lower case; for two adjacent words, joined with `_` (`register_user`). */
  word: string;
  /** Written as a call (`total()`), next to a code noun ("the total function", "class invoice"), or two words that may be one name. */
  hinted: boolean;
  /** For two adjacent words: both, lower case. */
  parts?: [string, string];
}

/** Most plain words kept; issue prose is short and later words add little. */
export const MAX_TASK_WORDS = 24;
/** Nouns that say the neighbouring word is a name in the code. */
const CODE_NOUNS = new Set([
  'function',
  'functions',
  'method',
  'methods',
  'func',
  'def',
  'class',
  'classes',
  'helper',
  'constructor',
  'struct',
  'interface',
  'type',
  'module',
  'handler',
  'endpoint',
  'field',
  'property',
]);
/** Prose words of issues that never single out a definition. */
const STOP_WORDS = new Set(
  (
    'the and for with that this these those from into onto when while should would could can cannot will shall must may might not but are was were been being has have had ' +
    'does did doing done its they them their there then than which what where who why how after before because only all any some none one two three new old ' +
    'fix fixes fixed fixing bug bugs error errors wrong broken issue issues problem please make makes add adds added remove removes removed use uses used using ' +
    'update updates updated change changes changed instead also just like very more most less such same other each every both either neither about above below ' +
    'over under again still even yet get gets got set sets see seen look looks return returns returned value values result results work works working case cases ' +
    'code file files line lines call calls called test tests true false null none nil undefined empty number string list data thing things way ways time without ' +
    'function functions method methods func def class classes helper constructor struct interface type module handler endpoint field property expected actual ' +
    'currently correctly correct incorrect properly proper right left want wants need needs here now out off your our you we it is in on at by to of an or as be do if so no up'
  ).split(' '),
);
/** Words, with a dotted chain kept whole so that `Service.exchange` yields no plain word. */
const WORD = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?/g;

/**
 * Plain words of the title and objective that may still name code: `total` in "fix the total
 * function in invoice.py", `ETA`, and two adjacent words that may be one name ("register user"
 * -> `register_user`, `registerUser`). They are not search terms (most prose words name
 * nothing); target selection matches them only against definitions and file names. Names that
 * already have a code shape are search terms and are left out here.
 */
export function taskWords(input: { title: string; objective: string }): TaskWord[] {
  const out = new Map<string, TaskWord>();
  const keep = (w: TaskWord): void => {
    const seen = out.get(w.word);
    if (seen) seen.hinted ||= w.hinted;
    else if (out.size < MAX_TASK_WORDS) out.set(w.word, w);
  };
  for (const text of [input.title, input.objective]) {
    const tokens = [...text.slice(0, 64 * 1024).matchAll(WORD)].map((m) => m[0]);
    let previous: string | undefined;
    tokens.forEach((token, i) => {
      const call = token.endsWith('()');
      const word = call ? token.slice(0, -2) : token;
      // Lower case, Capitalised at a sentence start, or a short acronym (`ETA`); other shapes are search terms already.
      const plain =
        word.length >= 3 &&
        word.length <= 64 &&
        /^[a-z][a-z0-9]*$/i.test(word) &&
        !isNameLike(word) &&
        (word === word.toLowerCase() || /^[A-Z][a-z0-9]*$/.test(word) || /^[A-Z]{3,4}$/.test(word));
      const lower = word.toLowerCase();
      if (!plain || STOP_WORDS.has(lower)) {
        previous = undefined;
        return;
      }
      const near = (k: number): boolean => CODE_NOUNS.has((tokens[k] ?? '').toLowerCase());
      keep({ word: lower, hinted: call || near(i - 1) || near(i + 1) });
      if (previous) keep({ word: `${previous}_${lower}`, hinted: true, parts: [previous, lower] });
      previous = lower;
    });
  }
  return [...out.values()];
}
