import { XMLValidator } from 'fast-xml-parser';
import { parse as parseToml } from 'smol-toml';
import { parseAllDocuments } from 'yaml';
import { scanJson } from './json-scan.js';
import type { DataFormat } from './language-for-path.js';
import { LineIndex } from './line-index.js';
import type { ParseProblem } from './types.js';

/** Parse problems of a data file, from the format's own parser. Empty when the file parses. */
export function dataParseProblems(format: DataFormat, source: string): ParseProblem[] {
  switch (format) {
    case 'json':
      return jsonProblems(source, source);
    case 'jsonc':
      return jsonProblems(stripJsonComments(source), source);
    case 'yaml':
      return yamlProblems(source);
    case 'toml':
      return tomlProblems(source);
    case 'xml':
      return xmlProblems(source);
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0].trim();
}

/** JSON.parse reports an offset ("at position N") or, in newer engines, "line L column C". */
function jsonProblems(parsed: string, original: string): ParseProblem[] {
  const body = parsed.charCodeAt(0) === 0xfeff ? ` ${parsed.slice(1)}` : parsed;
  try {
    JSON.parse(body);
    return [];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const index = new LineIndex(original);
    const position = /at position (\d+)/.exec(message);
    const lineColumn = /line (\d+) column (\d+)/.exec(message);
    let at: { line: number; column: number };
    if (position) at = index.position(Math.min(Number(position[1]), original.length));
    else if (lineColumn) at = { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
    else {
      // This engine's message has no position: the scanner finds where the text stops being JSON.
      const scanned = scanJson(parsed).error;
      at = index.position(scanned ? scanned.offset : /end of JSON input/.test(message) ? original.length : 0);
    }
    return [{ ...at, message: firstLine(message), type: 'JSON_PARSE' }];
  }
}

/** The index just past the JSON string that opens at `i`. */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
  return j + 1;
}

/** Blanks the comment that opens at `i`, if one does, and returns the index past it (`i` when none). */
function blankComment(text: string, out: string[], i: number): number {
  if (text[i] !== '/') return i;
  if (text[i + 1] === '/') {
    while (i < text.length && text[i] !== '\n') out[i++] = ' ';
    return i;
  }
  if (text[i + 1] !== '*') return i;
  const end = text.indexOf('*/', i + 2);
  const stop = end < 0 ? text.length : end + 2;
  for (; i < stop; i++) if (text[i] !== '\n' && text[i] !== '\r') out[i] = ' ';
  return i;
}

/**
 * Blank out comments and trailing commas (same length, newlines kept) so JSON.parse can check
 * a JSON-with-comments file and its positions still point into the original text.
 */
export function stripJsonComments(text: string): string {
  const out = text.split('');
  let i = 0;
  let lastSignificant = -1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      lastSignificant = i;
      i = stringEnd(text, i);
      continue;
    }
    const past = blankComment(text, out, i);
    if (past !== i) {
      i = past;
      continue;
    }
    if ((ch === '}' || ch === ']') && lastSignificant >= 0 && text[lastSignificant] === ',') out[lastSignificant] = ' ';
    if (!/\s/.test(ch)) lastSignificant = i;
    i++;
  }
  return out.join('');
}

function yamlProblems(source: string): ParseProblem[] {
  const problems: ParseProblem[] = [];
  const docs = parseAllDocuments(source, { prettyErrors: true });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    for (const error of doc.errors) {
      const at = error.linePos?.[0] ?? { line: 1, col: 1 };
      problems.push({ line: at.line, column: at.col, message: firstLine(error.message), type: `YAML_${error.code}` });
    }
  }
  return problems;
}

function tomlProblems(source: string): ParseProblem[] {
  try {
    parseToml(source);
    return [];
  } catch (error) {
    const e = error as { line?: number; column?: number; message?: string };
    return [{ line: e.line ?? 1, column: e.column ?? 1, message: firstLine(e.message ?? String(error)), type: 'TOML_PARSE' }];
  }
}

function xmlProblems(source: string): ParseProblem[] {
  const result = XMLValidator.validate(source, { allowBooleanAttributes: true });
  if (result === true) return [];
  return [{ line: result.err.line, column: result.err.col, message: result.err.msg, type: `XML_${result.err.code}` }];
}
