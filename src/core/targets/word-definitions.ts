import type { FileContents } from '../repomap/file-contents.js';
import type { SymbolIndex } from '../repomap/symbol-index.js';
import type { TaskWord } from '../task/search-terms.js';
import { AMBIGUOUS_NAME_FILES } from './named-paths.js';
import { DEFINITION_SCORE, textDefinitions } from './symbol-search.js';
import type { TargetEvidence } from './target-selection-schema.js';
import { escapeRegExp } from '../util/escape-regexp.js';

export interface WordDefinition {
  path: string;
  score: number;
  /** The word was written as code and its definition is unambiguous. */
  strong: boolean;
  reason: string;
  evidence: TargetEvidence;
}

/** Files parsed per word at most; a word found in more files than this is too common to single one out. */
export const MAX_WORD_DEFINITION_FILES = 200;

/** The spellings a task word may have as a name: `total`, `Total`, `ETA`; `register_user`, `registerUser`, `RegisterUser`. */
export function wordSpellings(w: TaskWord): string[] {
  const cap = (x: string): string => x[0].toUpperCase() + x.slice(1);
  if (w.parts) return [w.word, `${w.parts[0]}${cap(w.parts[1])}`, `${cap(w.parts[0])}${cap(w.parts[1])}`];
  return [w.word, cap(w.word), ...(w.word.length <= 4 ? [w.word.toUpperCase()] : [])];
}

/** The same, lower case and without separators, for comparing with file names (`ReminderJob.java`, `reminder_job.py`). */
export function wordFileStems(w: TaskWord): string[] {
  return w.parts ? [w.word, w.parts.join('')] : [w.word];
}

/** A cheap textual test that `name` may be defined in the text, before anything is parsed. */
function mayDefine(text: string, name: string): boolean {
  const n = escapeRegExp(name);
  return new RegExp(
    `\\b(?:def|function|func|class|interface|type|struct|enum|record|fn|val|var|let|const)\\s+(?:\\([^)]*\\)\\s*)?${n}\\b|(?<![\\w$.])${n}\\s*(?:=|:)\\s*(?:async\\s+)?(?:function\\b|\\()|^[ \\t]*(?:[\\w<>\\[\\],.?]+\\s+)*${n}\\s*\\([^)]*\\)\\s*(?:throws [\\w., ]+)?\\s*[{:]`,
    'm',
  ).test(text);
}

/**
 * Definitions whose name is a plain word of the task ("fix the total function" -> `def total`).
 * Only files where the word occurs are looked at, a textual pre-check comes before the parse,
 * and a word defined in many files is reported as ambiguous with a small score, so common words
 * do not select half the repository.
 */
export async function findWordDefinitions(input: {
  words: readonly TaskWord[];
  /** Files in which each spelling occurs (from the keyword pass). */
  filesWith: (spelling: string) => readonly string[];
  contents: FileContents;
  symbols?: SymbolIndex;
  isTest: (path: string) => boolean;
}): Promise<{ findings: WordDefinition[]; filesParsed: number; tooCommon: string[] }> {
  const findings: WordDefinition[] = [];
  const tooCommon: string[] = [];
  let filesParsed = 0;
  for (const { word, hinted, parts } of input.words) {
    const spellings = wordSpellings({ word, hinted, parts });
    const files = [...new Set(spellings.flatMap((s) => input.filesWith(s)))].filter((p) => !input.isTest(p)).sort();
    if (files.length > MAX_WORD_DEFINITION_FILES) {
      tooCommon.push(word);
      continue;
    }
    const defs: { path: string; line: number; snippet: string; name: string; kind?: string }[] = [];
    for (const path of files) {
      const text = await input.contents.text(path);
      if (text === undefined || !spellings.some((s) => mayDefine(text, s))) continue;
      const tags = input.symbols?.supports(path) ? await input.symbols.tags(path) : undefined;
      if (tags) filesParsed++;
      const found = tags
        ? tags
            .filter((t) => t.kind === 'definition' && spellings.includes(t.name))
            .map((t) => ({ name: t.name, line: t.line, kind: t.symbolKind as string | undefined }))
        : textDefinitions(text).filter((d) => spellings.includes(d.name));
      const first = found.find((d) => d.name === spellings[0]) ?? found[0];
      if (first)
        defs.push({ path, line: first.line, snippet: (text.split('\n')[first.line - 1] ?? '').trim().slice(0, 200), name: first.name, kind: first.kind });
    }
    const ambiguous = defs.length > AMBIGUOUS_NAME_FILES;
    for (const d of defs) {
      findings.push({
        path: d.path,
        score: ambiguous ? 0.1 : hinted ? DEFINITION_SCORE : 0.35,
        strong: hinted && !ambiguous,
        reason: ambiguous
          ? `defines ${d.name}, one of ${defs.length} definitions of the task word "${word}"`
          : `defines ${d.name} (${hinted ? 'named as code in the task' : 'a word of the task'})`,
        evidence: { type: 'symbol', line: d.line, snippet: d.snippet, term: word, detail: 'definition' },
      });
    }
  }
  return { findings, filesParsed, tooCommon };
}
