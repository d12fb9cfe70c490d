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
  const byBase = new Map<string, string[]>();
  const byStem = new Map<string, string[]>();
  for (const p of input.candidates) {
    push(byBase, baseName(p), p);
    if (!input.isTest(p)) push(byStem, stemOf(p), p);
  }
  const byStemLower = new Map<string, string[]>();
  for (const [stem, paths] of byStem) for (const p of paths) push(byStemLower, stem.toLowerCase(), p);
  const candidateSet = new Set(input.candidates);

  for (const raw of input.pathTerms) {
    const term = raw.replace(/^\.?\//, '');
    if (candidateSet.has(term)) {
      out.push({ path: term, score: 1, reason: `named in the task: ${term}`, evidence: { type: 'scope', term: raw, detail: 'exact path' } });
      continue;
    }
    const matches = term.includes('/') ? input.candidates.filter((p) => p.endsWith(`/${term}`)) : (byBase.get(term) ?? []);
    const ambiguous = matches.length > AMBIGUOUS_NAME_FILES;
    for (const p of matches) {
      out.push({
        path: p,
        score: ambiguous ? 0.3 : term.includes('/') ? 0.95 : 0.9,
        reason: ambiguous ? `one of ${matches.length} files named ${term}` : `file named in the task: ${term}`,
        evidence: { type: 'scope', term: raw, detail: term.includes('/') ? 'path suffix' : 'file name at any depth' },
      });
    }
  }
  const stems: [string, string[] | undefined, boolean][] = [
    ...input.symbolNames.map((n): [string, string[] | undefined, boolean] => [n, byStem.get(n), true]),
    ...input.words.map((w): [string, string[] | undefined, boolean] => [w, byStemLower.get(w), false]),
  ];
  for (const [name, matches, symbol] of stems) {
    if (!matches) continue;
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
  // A file name made of several task words ("fish shell completion" -> fish_completions.go).
  const wordSet = new Set(input.words.flatMap((w) => [w, `${w}s`, w.replace(/s$/, '')]));
  const stemsDone = new Set(stems.flatMap(([, m]) => m ?? []));
  for (const [stem, paths] of byStem) {
    const tokens = stemTokens(stem);
    if (tokens.length < 2 || !tokens.every((t) => wordSet.has(t)) || paths.length > AMBIGUOUS_NAME_FILES) continue;
    for (const p of paths) {
      if (stemsDone.has(p)) continue;
      out.push({ path: p, score: 0.3, reason: `file name ${stem} is made of words of the task (${tokens.join(', ')})`, evidence: { type: 'scope', term: tokens.join(' '), detail: 'file name words' } });
    }
  }
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
