import type { SearchTerm } from './task-contract.js';
import type { RecipeStep } from './recipe-steps.js';

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
const PACKAGE_ROOTS = new Set(['com', 'org', 'net', 'io', 'dev', 'edu', 'gov', 'java', 'javax', 'jakarta', 'android', 'androidx', 'kotlin', 'kotlinx', 'scala', 'akka']);
/** Product names that look like CamelCase identifiers in prose. */
const PROSE_NAMES = new Set(['GitHub', 'GitLab', 'JavaScript', 'TypeScript', 'PowerShell', 'PostgreSQL', 'MySQL', 'MongoDB', 'OAuth', 'YouTube', 'LinkedIn', 'macOS', 'iOS', 'iPhone', 'iPad', 'DevOps', 'OpenAI', 'OpenAPI', 'GraphQL', 'JetBrains', 'IntelliJ', 'WebSocket', 'NodeJS']);

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
 * then backticked names, quoted identifiers, and names recognisable in plain prose (CamelCase,
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
    switch (step.recipe) {
      case 'replace':
        if (!step.regex) add(step.find, 'recipe-parameter', at('find'));
        break;
      case 'migrate-import':
      case 'rename-symbol':
        add(step.from, 'recipe-parameter', at('from'));
        add(step.to, 'recipe-parameter', at('to'));
        break;
      case 'bump-dependency':
        add(step.package, 'recipe-parameter', at('package'));
        break;
    }
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
  if (QUALIFIED.test(token)) {
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
    return;
  }
  if (IDENTIFIER.test(token) && (explicit || (isNameLike(token) && !PROSE_NAMES.has(token)))) add(token, 'symbol', source);
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

/** Sentence punctuation around a token (`exchangeToken.`, `:Foo`). */
function trimPunctuation(token: string): string {
  let start = 0;
  let end = token.length;
  while (start < end && '.:'.includes(token[start])) start++;
  while (end > start && '.:'.includes(token[end - 1])) end--;
  return token.slice(start, end);
}
