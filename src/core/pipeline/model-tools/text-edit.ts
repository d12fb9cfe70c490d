/** Where an exact search/replace edit applies in a text, and the text after it. */
export interface LocatedEdit {
  /** Every occurrence of the old text, left to right, with its 1-based starting line. */
  matches: { index: number; line: number }[];
  /** No exact occurrence, but one when runs of whitespace are ignored (indentation copied wrongly). */
  whitespaceOnly: boolean;
  /** The text with the first occurrence replaced, or all of them. */
  apply(all: boolean): string;
}

/**
 * Locate `oldText` in `text` exactly. A file with CRLF line ends is matched against the old
 * text with its LF line ends turned to CRLF (models send LF), and the new text follows suit,
 * so an edit keeps the file's line ends.
 */
export function locateEdit(text: string, oldText: string, newText: string): LocatedEdit {
  let search = oldText;
  let replacement = newText;
  if (text.includes('\r\n') && !oldText.includes('\r') && oldText.includes('\n')) {
    search = oldText.replace(/\n/g, '\r\n');
    replacement = newText.replace(/\r?\n/g, '\r\n');
  }
  const matches: { index: number; line: number }[] = [];
  let line = 1;
  let counted = 0;
  for (let at = text.indexOf(search); at >= 0; at = text.indexOf(search, at + search.length)) {
    for (let i = counted; i < at; i++) if (text.charCodeAt(i) === 10) line++;
    counted = at;
    matches.push({ index: at, line });
  }
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
  const whitespaceOnly = matches.length === 0 && squash(oldText) !== '' && squash(text).includes(squash(oldText));
  return {
    matches,
    whitespaceOnly,
    apply(all) {
      if (matches.length === 0) return text;
      const chosen = all ? matches : matches.slice(0, 1);
      let out = '';
      let from = 0;
      for (const m of chosen) {
        out += text.slice(from, m.index) + replacement;
        from = m.index + search.length;
      }
      return out + text.slice(from);
    },
  };
}

/**
 * The lines of `text` most like the first non-blank line of `oldText` (character bigram
 * similarity of the trimmed lines), best first: what the model most likely meant to match.
 */
export function closestLines(text: string, oldText: string, count = 3): { line: number; text: string }[] {
  const wanted = oldText
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (!wanted) return [];
  const target = bigrams(wanted);
  const scored: { line: number; text: string; score: number }[] = [];
  text.split('\n').forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed === '') return;
    const score = dice(target, bigrams(trimmed));
    if (score >= 0.4) scored.push({ line: i + 1, text: raw.replace(/\r$/, '').slice(0, 200), score });
  });
  return scored
    .sort((a, b) => b.score - a.score || a.line - b.line)
    .slice(0, count)
    .map(({ line, text: t }) => ({ line, text: t }));
}

function bigrams(s: string): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const g = s.slice(i, i + 2);
    out.set(g, (out.get(g) ?? 0) + 1);
  }
  return out;
}

function dice(a: Map<string, number>, b: Map<string, number>): number {
  let both = 0;
  let total = 0;
  for (const n of a.values()) total += n;
  for (const n of b.values()) total += n;
  for (const [g, n] of a) both += Math.min(n, b.get(g) ?? 0);
  return total === 0 ? 0 : (2 * both) / total;
}
