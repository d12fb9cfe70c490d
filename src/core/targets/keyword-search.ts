import type { FileContents } from '../repomap/file-contents.js';
import { escapeRegExp } from '../util/escape-regexp.js';

export interface KeywordHit {
  term: string;
  line: number;
  snippet: string;
}

const IDENT = /[A-Za-z0-9_$]/;

/** One regular expression for all terms; a term that starts or ends with an identifier character must not touch another one there. */
export function termsPattern(terms: string[]): RegExp | undefined {
  const unique = [...new Set(terms.filter((t) => t.length > 0))].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  if (unique.length === 0) return undefined;
  const parts = unique.map((t) => `${IDENT.test(t[0]) ? '(?<![A-Za-z0-9_$])' : ''}${escapeRegExp(t)}${IDENT.test(t[t.length - 1]) ? '(?![A-Za-z0-9_$])' : ''}`);
  return new RegExp(parts.join('|'), 'g');
}

/**
 * In-memory keyword search over the given files (already filtered: no binary, generated or
 * vendored paths). One pass per file with one combined expression; lines are numbered only
 * for files that hit. Returns hits per file, sorted by path.
 */
export async function keywordSearch(
  contents: FileContents,
  paths: readonly string[],
  terms: string[],
  maxHitsPerFile = 50,
): Promise<{ hits: Map<string, KeywordHit[]>; searched: number }> {
  const pattern = termsPattern(terms);
  const hits = new Map<string, KeywordHit[]>();
  if (!pattern) return { hits, searched: 0 };
  let searched = 0;
  for (const path of paths) {
    const text = await contents.text(path);
    if (text === undefined) continue;
    searched++;
    pattern.lastIndex = 0;
    if (!pattern.test(text)) continue;
    pattern.lastIndex = 0;
    const list: KeywordHit[] = [];
    const lineStarts: number[] = [0];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
    for (const m of text.matchAll(pattern)) {
      let lo = 0;
      let hi = lineStarts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (lineStarts[mid] <= m.index!) lo = mid;
        else hi = mid - 1;
      }
      const end = text.indexOf('\n', lineStarts[lo]);
      const line = text
        .slice(lineStarts[lo], end < 0 ? undefined : end)
        .trim()
        .slice(0, 200);
      if (list.length < maxHitsPerFile) list.push({ term: m[0], line: lo + 1, snippet: line });
    }
    hits.set(path, list);
  }
  return { hits, searched };
}

/** For each term, the files in which it occurs at least once (identifier boundaries as in `termsPattern`). */
export async function filesContaining(contents: FileContents, paths: readonly string[], terms: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(terms.map((t) => [t, []]));
  const any = termsPattern([...terms]);
  if (!any) return out;
  const each = terms.map((t) => [t, termsPattern([t])!] as const);
  for (const path of paths) {
    const text = await contents.text(path);
    if (text === undefined) continue;
    any.lastIndex = 0;
    if (!any.test(text)) continue;
    for (const [t, re] of each) {
      re.lastIndex = 0;
      if (re.test(text)) out.get(t)!.push(path);
    }
  }
  return out;
}
