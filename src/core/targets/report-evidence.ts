import { baseName } from '../paths/path-classes.js';
import type { FileContents } from '../repomap/file-contents.js';
import { literalFragments } from '../task/report-literals.js';
import { escapeRegExp } from '../util/escape-regexp.js';
import { filesContaining } from './keyword-search.js';
import type { TargetEvidence } from './target-selection-schema.js';

export interface ReportFinding {
  path: string;
  score: number;
  reason: string;
  evidence: TargetEvidence;
  /** Defining evidence (a frame, a quoted message held by few files): ranks with definitions. */
  strong: boolean;
}

/** A quoted literal held by more source files than this is a common word, not where the message comes from. */
export const MAX_LITERAL_FILES = 5;
export const FRAME_SCORE = 0.9;
export const LITERAL_SCORE = 0.5;

/**
 * The files a stack-trace frame names: the longest suffix of the frame's path that ends a
 * candidate path (`/venv/lib/site-packages/flask/app.py` -> `src/flask/app.py`). A bare file
 * name shared by many files names none of them.
 */
export function resolveFramePaths(frames: readonly string[], candidates: readonly string[], isTest: (p: string) => boolean): ReportFinding[] {
  const byBase = new Map<string, string[]>();
  for (const p of candidates) {
    const b = baseName(p);
    const list = byBase.get(b);
    if (list) list.push(p);
    else byBase.set(b, [p]);
  }
  const out: ReportFinding[] = [];
  const seen = new Set<string>();
  for (const frame of frames) {
    const segments = frame.split(/[\\/]/).filter((s) => s && s !== '.' && s !== '..');
    const same = byBase.get(segments[segments.length - 1] ?? '') ?? [];
    let matches: string[] = [];
    for (let k = segments.length; k >= 1 && matches.length === 0; k--) {
      const suffix = segments.slice(-k).join('/');
      matches = same.filter((p) => p === suffix || p.endsWith(`/${suffix}`));
      if (k === 1 && matches.length > 1) matches = [];
    }
    for (const p of matches) {
      if (seen.has(p)) continue;
      seen.add(p);
      const test = isTest(p);
      out.push({
        path: p,
        score: test ? FRAME_SCORE / 2 : FRAME_SCORE,
        reason: `in a stack-trace frame of the report: ${frame}`,
        evidence: { type: 'scope', term: frame, detail: 'stack-trace frame' },
        strong: !test,
      });
    }
  }
  return out;
}

/**
 * Files holding a quoted literal of the report verbatim (an error message, a flag, a rule id);
 * when no file holds the whole, the parts a program would not fill in. A literal held by a few
 * source files is strong evidence (the message is raised there); by many, a hint.
 */
export async function findLiteralFiles(input: {
  literals: readonly string[];
  /** Files holding each literal verbatim, from the keyword pass. */
  filesWith: (literal: string) => readonly string[];
  contents: FileContents;
  candidates: readonly string[];
  isTest: (p: string) => boolean;
}): Promise<{ findings: ReportFinding[]; fragments: string[] }> {
  const findings: ReportFinding[] = [];
  const missing = input.literals.filter((l) => input.filesWith(l).length === 0);
  const fragmentsOf = new Map(missing.map((l) => [l, literalFragments(l)]));
  const fragments = [...new Set([...fragmentsOf.values()].flat())];
  const byFragment = fragments.length ? await filesContaining(input.contents, input.candidates, fragments) : new Map<string, string[]>();
  for (const literal of input.literals) {
    const whole = input.filesWith(literal);
    const parts = whole.length ? [{ text: literal, files: whole }] : (fragmentsOf.get(literal) ?? []).map((f) => ({ text: f, files: byFragment.get(f) ?? [] }));
    for (const { text, files } of parts) {
      const sources = files.filter((p) => !input.isTest(p));
      const few = sources.length > 0 && sources.length <= MAX_LITERAL_FILES;
      for (const p of files) {
        const strong = few && !input.isTest(p);
        findings.push({
          path: p,
          score: strong ? (text === literal ? LITERAL_SCORE : LITERAL_SCORE * 0.8) : 0.1,
          reason: `holds the quoted text ${JSON.stringify(text)}${text === literal ? '' : ` (part of ${JSON.stringify(literal)})`}`,
          evidence: { type: 'keyword', term: text, detail: text === literal ? 'quoted literal' : 'part of a quoted literal' },
          strong,
        });
      }
    }
  }
  return { findings, fragments };
}

/**
 * The spellings in the code of names the report wrote with other letter case (`JsonParser` for
 * `JSONParser`): one case-insensitive pass, only for names no file holds exactly.
 */
export async function caseInsensitiveSpellings(contents: FileContents, paths: readonly string[], names: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, Set<string>>();
  if (names.length === 0) return new Map();
  const byLower = new Map(names.map((n) => [n.toLowerCase(), n]));
  const re = new RegExp(`(?<![A-Za-z0-9_$])(?:${names.map(escapeRegExp).join('|')})(?![A-Za-z0-9_$])`, 'gi');
  for (const p of paths) {
    const text = await contents.text(p);
    if (text === undefined) continue;
    for (const m of text.matchAll(re)) {
      const name = byLower.get(m[0].toLowerCase());
      if (!name || m[0] === name) continue;
      let set = out.get(name);
      if (!set) out.set(name, (set = new Set()));
      if (set.size < 3) set.add(m[0]);
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()]));
}
