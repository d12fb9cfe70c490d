import { baseName } from '../paths/path-classes.js';
import type { TargetEvidence } from './target-selection-schema.js';

export interface PathFinding {
  path: string;
  score: number;
  reason: string;
  evidence: TargetEvidence;
}

/** More files than this sharing one named file name or stem make the name ambiguous: each gets a small score. */
export const AMBIGUOUS_NAME_FILES = 3;

const stemOf = (path: string): string => {
  const name = baseName(path);
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
};

/** Candidates by file name and by name stem (tests left out of the stems, exact and lower-case). */
interface NameIndex {
  candidates: readonly string[];
  candidateSet: Set<string>;
  byBase: Map<string, string[]>;
  byStem: Map<string, string[]>;
  byStemLower: Map<string, string[]>;
}

function nameIndex(candidates: readonly string[], isTest: (path: string) => boolean): NameIndex {
  const byBase = new Map<string, string[]>();
  const byStem = new Map<string, string[]>();
  for (const p of candidates) {
    push(byBase, baseName(p), p);
    if (!isTest(p)) push(byStem, stemOf(p), p);
  }
  const byStemLower = new Map<string, string[]>();
  for (const [stem, paths] of byStem) for (const p of paths) push(byStemLower, stem.toLowerCase(), p);
  return { candidates, candidateSet: new Set(candidates), byBase, byStem, byStemLower };
}

/** A path term: an exact path, else a path suffix or a bare file name at any depth. */
function pathTermFindings(raw: string, index: NameIndex, out: PathFinding[]): void {
  const term = raw.replace(/^\.?\//, '');
  if (index.candidateSet.has(term)) {
    out.push({ path: term, score: 1, reason: `named in the task: ${term}`, evidence: { type: 'scope', term: raw, detail: 'exact path' } });
    return;
  }
  const suffix = term.includes('/');
  const matches = suffix ? index.candidates.filter((p) => p.endsWith(`/${term}`)) : (index.byBase.get(term) ?? []);
  const ambiguous = matches.length > AMBIGUOUS_NAME_FILES;
  for (const p of matches) {
    out.push({
      path: p,
      score: ambiguous ? 0.3 : suffix ? 0.95 : 0.9,
      reason: ambiguous ? `one of ${matches.length} files named ${term}` : `file named in the task: ${term}`,
      evidence: { type: 'scope', term: raw, detail: suffix ? 'path suffix' : 'file name at any depth' },
    });
  }
}

/** Files whose name stem is a named symbol (`symbol`) or a task word. */
function stemFindings(name: string, matches: string[] | undefined, symbol: boolean, out: PathFinding[]): void {
  if (!matches) return;
  const ambiguous = matches.length > AMBIGUOUS_NAME_FILES;
  for (const p of matches) {
    out.push({
      path: p,
      score: ambiguous ? 0.05 : symbol ? 0.35 : 0.25,
      reason: ambiguous ? `file name ${stemOf(p)} is shared by ${matches.length} files` : `file name matches ${name}`,
      evidence: { type: 'scope', term: name, detail: 'file name stem' },
    });
  }
}

/** A file name made of several task words ("fish shell completion" -> fish_completions.go), unless its stem already matched. */
function wordComboFindings(words: readonly string[], byStem: Map<string, string[]>, stemsDone: Set<string>, out: PathFinding[]): void {
  const wordSet = new Set(words.flatMap((w) => [w, `${w}s`, w.replace(/s$/, '')]));
  for (const [stem, paths] of byStem) {
    const tokens = stemTokens(stem);
    if (tokens.length < 2 || !tokens.every((t) => wordSet.has(t)) || paths.length > AMBIGUOUS_NAME_FILES) continue;
    for (const p of paths) {
      if (stemsDone.has(p)) continue;
      out.push({
        path: p,
        score: 0.3,
        reason: `file name ${stem} is made of words of the task (${tokens.join(', ')})`,
        evidence: { type: 'scope', term: tokens.join(' '), detail: 'file name words' },
      });
    }
  }
}

/**
 * Files the task names: an exact path, a path suffix (`billing/invoice.py`), a bare file name at
 * any depth (`invoice.py`), or a file whose name stem is a named symbol or task word
 * (`InvoiceService` -> `InvoiceService.java`, "invoice" -> `invoice.py`). Names shared by many
 * files score low, so a common name such as `index.ts` does not crowd out real evidence.
 */
export function findNamedPaths(input: {
  candidates: readonly string[];
  pathTerms: readonly string[];
  /** Symbol names (compared exactly) and lower-case task words (compared case-insensitively). */
  symbolNames: readonly string[];
  words: readonly string[];
  isTest: (path: string) => boolean;
}): PathFinding[] {
  const out: PathFinding[] = [];
  const index = nameIndex(input.candidates, input.isTest);
  for (const raw of input.pathTerms) pathTermFindings(raw, index, out);
  const stems: [string, string[] | undefined, boolean][] = [
    ...input.symbolNames.map((n): [string, string[] | undefined, boolean] => [n, index.byStem.get(n), true]),
    ...input.words.map((w): [string, string[] | undefined, boolean] => [w, index.byStemLower.get(w), false]),
  ];
  for (const [name, matches, symbol] of stems) stemFindings(name, matches, symbol, out);
  wordComboFindings(input.words, index.byStem, new Set(stems.flatMap(([, m]) => m ?? [])), out);
  return out;
}

/** `fish_completions` -> fish, completions; `ReminderJob` -> reminder, job. */
function stemTokens(stem: string): string[] {
  return stem
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_\-]+/)
    .filter(Boolean)
    .map((t) => t.toLowerCase());
}

/** Directories whose name is a named symbol or task word (`billing`): evidence for files found inside them, never a selection on its own. */
export function namedDirectories(candidates: readonly string[], names: readonly string[]): Map<string, string> {
  const wanted = new Map(names.map((n) => [n.toLowerCase(), n]));
  const dirs = new Map<string, string>();
  for (const p of candidates) {
    const segments = p.split('/').slice(0, -1);
    segments.forEach((s, i) => {
      const name = wanted.get(s.toLowerCase());
      if (name) dirs.set(segments.slice(0, i + 1).join('/'), name);
    });
  }
  return dirs;
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Most directory paths taken from one task, and most directories one path may name before it says nothing. */
export const MAX_NAMED_DIRECTORY_PATHS = 5;
export const AMBIGUOUS_DIRECTORY_PATHS = 3;

/**
 * Directories the task names by a path of two segments or more (`paths`, the task's path-shaped
 * tokens): the directory itself, or every directory the path ends (`transport/http2` names
 * `internal/transport/http2`), when at most AMBIGUOUS_DIRECTORY_PATHS do. Directory -> the
 * path as the task wrote it.
 */
export function directoriesNamedByPath(candidates: readonly string[], paths: readonly string[]): Map<string, string> {
  if (paths.length === 0) return new Map();
  const dirs = new Set<string>();
  for (const p of candidates) {
    const segments = p.split('/');
    for (let i = 1; i < segments.length; i++) dirs.add(segments.slice(0, i).join('/'));
  }
  const out = new Map<string, string>();
  for (const path of paths.slice(0, MAX_NAMED_DIRECTORY_PATHS)) {
    const matches = [...dirs].filter((d) => d === path || d.endsWith(`/${path}`));
    if (matches.length > 0 && matches.length <= AMBIGUOUS_DIRECTORY_PATHS) for (const d of matches) out.set(d, path);
  }
  return out;
}
