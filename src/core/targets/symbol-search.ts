import type { FileContents } from '../repomap/file-contents.js';
import type { SymbolIndex } from '../repomap/symbol-index.js';
import type { SymbolTag } from '../syntax/types.js';
import type { TargetEvidence } from './target-selection-schema.js';

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

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Variables and fields declared with `type` in this file (Java/TS/Go declaration shapes). */
function typedNames(text: string, type: string): Set<string> {
  const names = new Set<string>();
  const t = escape(type);
  for (const m of text.matchAll(new RegExp(`\\b${t}(?:<[^>]*>)?\\s+([a-zA-Z_$][\\w$]*)\\s*[;=,)]`, 'g'))) names.add(m[1]);
  for (const m of text.matchAll(new RegExp(`\\b([a-zA-Z_$][\\w$]*)\\s*[?!]?:\\s*${t}\\b`, 'g'))) names.add(m[1]);
  for (const m of text.matchAll(new RegExp(`\\b([a-zA-Z_$][\\w$]*)\\s*(?::=|=)\\s*(?:new\\s+)?${t}\\s*[({]`, 'g'))) names.add(m[1]);
  return names;
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;
const snippetAt = (text: string, line: number): string => (text.split('\n')[line - 1] ?? '').trim().slice(0, 200);

/**
 * Symbol search over the files the keyword search found: definitions, invocations, imports and
 * type references of the named symbols. A call of `member` counts as the target only when its
 * receiver is the target type or a variable declared with it; a same-named method defined in
 * another type, and calls without a receiver in such a file, are reported as unrelated.
 * Syntactic: with tree-sitter tags when a SymbolIndex is given, else from the text.
 */
export async function analyseSymbols(terms: string[], paths: string[], contents: FileContents, symbols?: SymbolIndex): Promise<{ findings: Map<string, SymbolFinding>; filesParsed: number }> {
  const findings = new Map<string, SymbolFinding>();
  let filesParsed = 0;
  for (const path of paths) {
    const text = await contents.text(path);
    if (text === undefined) continue;
    const tags: SymbolTag[] | undefined = symbols?.supports(path) ? await symbols.tags(path) : undefined;
    if (tags) filesParsed++;
    const finding: SymbolFinding = { score: 0, reasons: [], evidence: [], definesTarget: false };
    for (const term of terms) {
      const { type, member } = splitSymbolTerm(term);
      const receivers = type ? typedNames(text, type) : new Set<string>();
      if (type) receivers.add(type);
      const defs = tags
        ? tags.filter((t) => t.kind === 'definition').map((t) => ({ name: t.name, scope: t.scope, line: t.line, kind: t.symbolKind }))
        : textDefinitions(text);
      // A capitalised name alone may be a function too (Go exports, C# methods): any definition of it counts.
      const definesType = type !== undefined && defs.some((d) => d.name === type && (d.kind === 'class' || d.kind === 'interface' || d.kind === 'type' || d.kind === 'enum' || d.kind === undefined || (!member && (d.kind === 'function' || d.kind === 'method'))));
      const localMember = member !== undefined && defs.some((d) => d.name === member && (d.kind === 'method' || d.kind === 'function' || d.kind === undefined) && (!type || (d.scope !== undefined && d.scope !== type) || (d.scope === undefined && !definesType)));
      if (definesType) {
        finding.definesTarget = true;
        // A type named alone is the subject of the task; next to a member it is where the member lives.
        finding.score += member ? 0.3 : DEFINITION_SCORE;
        const d = defs.find((x) => x.name === type)!;
        finding.reasons.push(`defines ${type}`);
        finding.evidence.push({ type: 'symbol', line: d.line, snippet: snippetAt(text, d.line), term, detail: 'definition' });
      } else if (!type && member && defs.some((d) => d.name === member)) {
        // A bare name: the file that defines it is where a fix starts, above the files that call it.
        finding.definesTarget = true;
        finding.score += DEFINITION_SCORE;
        const d = defs.find((x) => x.name === member)!;
        finding.reasons.push(`defines ${member}`);
        finding.evidence.push({ type: 'symbol', line: d.line, snippet: snippetAt(text, d.line), term, detail: 'definition' });
      }
      const calls = tags
        ? tags.filter((t) => t.kind === 'call' && t.name === member).map((t) => ({ line: t.line, receiver: t.receiver }))
        : member
          ? [...text.matchAll(new RegExp(`(?:([A-Za-z_$][\\w$]*)\\s*\\.\\s*)?(?<![\\w$])${escape(member)}\\s*\\(`, 'g'))]
              .filter((m) => !/\b(public|private|protected|static|void|String|func|def|function)\s+$/.test(text.slice(Math.max(0, m.index! - 40), m.index!)) || m[1])
              .map((m) => ({ line: lineOf(text, m.index!), receiver: m[1] }))
          : [];
      let exact = 0;
      for (const c of calls) {
        const recv = c.receiver?.replace(/^this\./, '');
        if (type && recv && receivers.has(recv)) {
          exact++;
          finding.evidence.push({ type: 'symbol', line: c.line, snippet: snippetAt(text, c.line), term, detail: `method invocation on ${recv} (${type})` });
        } else if (!type && member) exact++;
      }
      if (exact > 0 && type) {
        finding.score += 0.45;
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
      if (type && !definesType) {
        const imports = tags ? tags.filter((t) => t.kind === 'import' && (t.name === type || t.name.endsWith(`.${type}`) || t.name.endsWith(`/${type}`))) : [...text.matchAll(new RegExp(`^[ \\t]*import\\s+[\\w.]*\\b${escape(type)}\\s*;|import\\s*\\{[^}]*\\b${escape(type)}\\b[^}]*\\}`, 'gm'))].map((m) => ({ line: lineOf(text, m.index!) }));
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
    }
    if (finding.reasons.length > 0) findings.set(path, finding);
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
    const m = /^\s*(?:(?:public|private|protected|static|final|async|override|export|abstract|synchronized)\s+)*(?:[\w<>[\],.?]+\s+)?([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*(?:throws [\w., ]+)?\s*\{/.exec(l) ?? /^\s*(?:def|func(?:\s*\([^)]*\))?|function)\s+([A-Za-z_$][\w$]*)\s*\(/.exec(l);
    if (m && !/^(if|for|while|switch|catch|return|new)$/.test(m[1])) out.push({ name: m[1], scope: currentType, line: i + 1, kind: 'method' });
  });
  return out;
}
