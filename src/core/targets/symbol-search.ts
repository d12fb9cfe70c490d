import type { FileContents } from '../repomap/file-contents.js';
import type { SymbolIndex } from '../repomap/symbol-index.js';
import type { SymbolTag } from '../syntax/types.js';
import type { TargetEvidence } from './target-selection-schema.js';
import { escapeRegExp } from '../util/escape-regexp.js';

export interface SymbolFinding {
  score: number;
  reasons: string[];
  evidence: TargetEvidence[];
  /** The file defines the target type or (for a bare name) the target function. */
  definesTarget: boolean;
}

/** `LegacyAuthClient.exchangeToken` -> type and member; `exchangeToken` -> member only. */
export function splitSymbolTerm(term: string): { type?: string; member?: string; parts: string[] } {
  const parts = term.split(/\.|::|#/).filter(Boolean);
  if (parts.length >= 2) {
    const member = parts[parts.length - 1];
    const type = parts[parts.length - 2];
    return /^[A-Z]/.test(type) ? { type, member, parts: [type, member] } : { member, parts: [member] };
  }
  return /^[A-Z]/.test(term) ? { type: term, parts: [term] } : { member: term, parts: [term] };
}

/** What a definition of a named symbol adds to a file's score; a call of a bare name adds less, so definitions rank first. */
export const DEFINITION_SCORE = 0.6;
export const REFERENCE_SCORE = 0.25;

/** Variables and fields declared with `type` in this file (Java/TS/Go declaration shapes). */
function typedNames(text: string, type: string): Set<string> {
  const names = new Set<string>();
  const t = escapeRegExp(type);
  for (const m of text.matchAll(new RegExp(`\\b${t}(?:<[^>]*>)?\\s+([a-zA-Z_$][\\w$]*)\\s*[;=,)]`, 'g'))) names.add(m[1]);
  for (const m of text.matchAll(new RegExp(`\\b([a-zA-Z_$][\\w$]*)\\s*[?!]?:\\s*${t}\\b`, 'g'))) names.add(m[1]);
  for (const m of text.matchAll(new RegExp(`\\b([a-zA-Z_$][\\w$]*)\\s*(?::=|=)\\s*(?:new\\s+)?${t}\\s*[({]`, 'g'))) names.add(m[1]);
  return names;
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;
const snippetAt = (text: string, line: number): string => (text.split('\n')[line - 1] ?? '').trim().slice(0, 200);

type Definition = { name: string; scope?: string; line: number; kind?: SymbolTag['symbolKind'] };
type Call = { line: number; receiver?: string };

/** One file being analysed: its text, its tags when parsed, and the finding so far. */
interface FileAnalysis {
  text: string;
  tags: SymbolTag[] | undefined;
  finding: SymbolFinding;
}

const TYPE_KINDS = new Set<Definition['kind']>(['class', 'interface', 'type', 'enum', undefined]);
const CALLABLE_KINDS = new Set<Definition['kind']>(['method', 'function', undefined]);

function definitionsOf(file: FileAnalysis): Definition[] {
  return file.tags
    ? file.tags.filter((t) => t.kind === 'definition').map((t) => ({ name: t.name, scope: t.scope, line: t.line, kind: t.symbolKind }))
    : textDefinitions(file.text);
}

/** A capitalised name alone may be a function too (Go exports, C# methods): any definition of it counts. */
function definesType(defs: Definition[], type: string | undefined, member: string | undefined): boolean {
  return type !== undefined && defs.some((d) => d.name === type && (TYPE_KINDS.has(d.kind) || (!member && (d.kind === 'function' || d.kind === 'method'))));
}

/** The file defines its own callable named `member`, outside the target type. */
function definesLocalMember(defs: Definition[], type: string | undefined, member: string | undefined, typeDefined: boolean): boolean {
  return (
    member !== undefined &&
    defs.some(
      (d) =>
        d.name === member && CALLABLE_KINDS.has(d.kind) && (!type || (d.scope !== undefined && d.scope !== type) || (d.scope === undefined && !typeDefined)),
    )
  );
}

function noteDefinition(file: FileAnalysis, term: string, name: string, score: number, defs: Definition[]): void {
  const { finding, text } = file;
  finding.definesTarget = true;
  finding.score += score;
  const d = defs.find((x) => x.name === name)!;
  finding.reasons.push(`defines ${name}`);
  finding.evidence.push({ type: 'symbol', line: d.line, snippet: snippetAt(text, d.line), term, detail: 'definition' });
}

/** Calls of `member`: from the tags, or textually (a declaration is not a call unless it has a receiver). */
function callsOf(file: FileAnalysis, member: string | undefined): Call[] {
  const { tags, text } = file;
  if (tags) return tags.filter((t) => t.kind === 'call' && t.name === member).map((t) => ({ line: t.line, receiver: t.receiver }));
  if (!member) return [];
  return [...text.matchAll(new RegExp(`(?:([A-Za-z_$][\\w$]*)\\s*\\.\\s*)?(?<![\\w$])${escapeRegExp(member)}\\s*\\(`, 'g'))]
    .filter((m) => !/\b(public|private|protected|static|void|String|func|def|function)\s+$/.test(text.slice(Math.max(0, m.index! - 40), m.index!)) || m[1])
    .map((m) => ({ line: lineOf(text, m.index!), receiver: m[1] }));
}

/** Calls on a receiver of the target type (with a type), or any call of the bare name; evidence for the former. */
function countExactCalls(
  file: FileAnalysis,
  term: string,
  calls: Call[],
  type: string | undefined,
  member: string | undefined,
  receivers: Set<string>,
): number {
  let exact = 0;
  for (const c of calls) {
    const recv = c.receiver?.replace(/^this\./, '');
    if (type && recv && receivers.has(recv)) {
      exact++;
      file.finding.evidence.push({
        type: 'symbol',
        line: c.line,
        snippet: snippetAt(file.text, c.line),
        term,
        detail: `method invocation on ${recv} (${type})`,
      });
    } else if (!type && member) exact++;
  }
  return exact;
}

function noteCalls(
  file: FileAnalysis,
  term: string,
  calls: Call[],
  exact: number,
  type: string | undefined,
  member: string | undefined,
  localMember: boolean,
): void {
  const { finding, text } = file;
  if (exact > 0 && type) {
    finding.score += REFERENCE_SCORE;
    finding.reasons.push(`exact method invocation: ${type}.${member}`);
  } else if (exact > 0) {
    finding.score += REFERENCE_SCORE;
    finding.reasons.push(`calls ${member}`);
    const c = calls[0];
    finding.evidence.push({ type: 'symbol', line: c.line, snippet: snippetAt(text, c.line), term, detail: 'call' });
  } else if (localMember && type) {
    finding.score -= 0.25;
    finding.reasons.push(`defines its own ${member}: same name, unrelated to ${type ?? 'the target'}`);
  }
}

/** A file that uses the target type without defining it: its imports of the type and the names declared with it. */
function noteTypeUse(file: FileAnalysis, term: string, type: string): void {
  const { finding, text, tags } = file;
  const imports = tags
    ? tags.filter((t) => t.kind === 'import' && (t.name === type || t.name.endsWith(`.${type}`) || t.name.endsWith(`/${type}`)))
    : [...text.matchAll(new RegExp(`^[ \\t]*import\\s+[\\w.]*\\b${escapeRegExp(type)}\\s*;|import\\s*\\{[^}]*\\b${escapeRegExp(type)}\\b[^}]*\\}`, 'gm'))].map(
        (m) => ({
          line: lineOf(text, m.index!),
        }),
      );
  if (imports.length > 0) {
    finding.score += 0.1;
    finding.reasons.push(`imports ${type}`);
    finding.evidence.push({ type: 'symbol', line: imports[0].line, snippet: snippetAt(text, imports[0].line), term, detail: 'import' });
  }
  const typed = typedNames(text, type);
  if (typed.size > 0) {
    finding.score += 0.05;
    finding.reasons.push(`type reference: ${type} ${[...typed].sort().join(', ')}`);
  }
}

function noteConstruction(file: FileAnalysis, term: string, type: string): void {
  const built = callsOf(file, type).filter((c) => !c.receiver);
  if (built.length === 0) return;
  file.finding.score += REFERENCE_SCORE;
  file.finding.reasons.push(`constructs ${type}`);
  file.finding.evidence.push({ type: 'symbol', line: built[0].line, snippet: snippetAt(file.text, built[0].line), term, detail: 'construction' });
}

/** What one file says about one term: definitions, calls, imports and typed names. */
function analyseTerm(file: FileAnalysis, term: string): void {
  const { type, member } = splitSymbolTerm(term);
  const receivers = type ? typedNames(file.text, type) : new Set<string>();
  if (type) receivers.add(type);
  const defs = definitionsOf(file);
  const typeDefined = definesType(defs, type, member);
  const localMember = definesLocalMember(defs, type, member, typeDefined);
  // A type named alone is the subject of the task; next to a member it is where the member lives.
  if (typeDefined) noteDefinition(file, term, type!, member ? 0.3 : DEFINITION_SCORE, defs);
  // The member's own definition inside the type: where a call step starts.
  if (typeDefined && member && defs.some((d) => d.name === member && d.scope === type))
    noteDefinition(
      file,
      term,
      member,
      0.3,
      defs.filter((d) => d.scope === type),
    );
  // A bare name: the file that defines it is where a fix starts, above the files that call it.
  else if (!type && member && defs.some((d) => d.name === member)) noteDefinition(file, term, member, DEFINITION_SCORE, defs);
  const calls = callsOf(file, member);
  const exact = countExactCalls(file, term, calls, type, member, receivers);
  noteCalls(file, term, calls, exact, type, member, localMember);
  if (type && !typeDefined) noteTypeUse(file, term, type);
  // A type named alone and built here (`raise ConfigError(...)`, `new Parser(...)`): where it is used in anger.
  if (type && !member && !typeDefined) noteConstruction(file, term, type);
}

/**
 * Symbol search over the files the keyword search found: definitions, invocations, imports and
 * type references of the named symbols. A call of `member` counts as the target only when its
 * receiver is the target type or a variable declared with it; a same-named method defined in
 * another type, and calls without a receiver in such a file, are reported as unrelated.
 * Syntactic: with tree-sitter tags when a SymbolIndex is given, else from the text.
 */
export async function analyseSymbols(
  terms: string[],
  paths: string[],
  contents: FileContents,
  symbols?: SymbolIndex,
): Promise<{ findings: Map<string, SymbolFinding>; filesParsed: number }> {
  const findings = new Map<string, SymbolFinding>();
  let filesParsed = 0;
  for (const path of paths) {
    const text = await contents.text(path);
    if (text === undefined) continue;
    const tags: SymbolTag[] | undefined = symbols?.supports(path) ? await symbols.tags(path) : undefined;
    if (tags) filesParsed++;
    const file: FileAnalysis = { text, tags, finding: { score: 0, reasons: [], evidence: [], definesTarget: false } };
    for (const term of terms) analyseTerm(file, term);
    if (file.finding.reasons.length > 0) findings.set(path, file.finding);
  }
  return { findings, filesParsed };
}

/** Textual definitions when no syntax service is available: classes, interfaces, methods, functions. */
export function textDefinitions(text: string): { name: string; scope?: string; line: number; kind?: SymbolTag['symbolKind'] }[] {
  const out: { name: string; scope?: string; line: number; kind?: SymbolTag['symbolKind'] }[] = [];
  let currentType: string | undefined;
  text.split('\n').forEach((l, i) => {
    const t = /\b(class|interface|enum|record)\s+([A-Za-z_$][\w$]*)/.exec(l);
    if (t && !/^\s*(\/\/|\*)/.test(l)) {
      currentType = t[2];
      out.push({ name: t[2], line: i + 1, kind: t[1] === 'interface' ? 'interface' : 'class' });
      return;
    }
    const m =
      /^\s*(?:(?:public|private|protected|static|final|async|override|export|abstract|synchronized)\s+)*(?:[\w<>[\],.?]+\s+)?([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*(?:throws [\w., ]+)?\s*\{/.exec(
        l,
      ) ?? /^\s*(?:def|func(?:\s*\([^)]*\))?|function)\s+([A-Za-z_$][\w$]*)\s*\(/.exec(l);
    if (m && !/^(if|for|while|switch|catch|return|new)$/.test(m[1])) out.push({ name: m[1], scope: currentType, line: i + 1, kind: 'method' });
  });
  return out;
}
