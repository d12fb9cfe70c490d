import type { FileContents } from '../repomap/file-contents.js';
import type { SymbolIndex } from '../repomap/symbol-index.js';
import type { SymbolTag } from '../syntax/types.js';
import { escapeRegExp } from '../util/escape-regexp.js';
import type { TargetEvidence } from './target-selection-schema.js';

/** A definition a step starts from: the file, the name and its line. */
export interface CallAnchor {
  path: string;
  name: string;
  line: number;
}

export interface CallStepFinding {
  path: string;
  score: number;
  reason: string;
  evidence: TargetEvidence;
  /** Distinct report terms the file holds. */
  coverage: number;
}

/** Bounds, not tuning: definitions followed, callee names per definition, files defining one callee, steps. */
export const MAX_CALL_ANCHORS = 4;
export const MAX_CALLEES = 40;
export const MAX_CALLEE_FILES = 3;
export const MAX_CALL_STEPS = 2;
const CALLEE_SCORE = 0.2;
const COVERAGE_SCORE = 0.08;
/** A callee handed one of the report's terms at its call (`buildURL(url, config.paramsSerializer)`): what the report names goes there. */
const HANDED_SCORE = 0.25;

const BODY_ENDS = new Set<SymbolTag['symbolKind']>(['function', 'method', 'class', 'interface', 'enum', 'type', 'module']);

/** The calls inside one definition's body: from its line to the next definition of a callable or type. */
function callsInBody(tags: readonly SymbolTag[], line: number): SymbolTag[] {
  const next = tags.filter((t) => t.kind === 'definition' && t.line > line && BODY_ENDS.has(t.symbolKind)).reduce((m, t) => Math.min(m, t.line), Infinity);
  return tags.filter((t) => t.kind === 'call' && t.line >= line && t.line < next);
}

/** A report term as a whole identifier, spelled as the report spells it. */
interface TermPattern {
  term: string;
  pattern: RegExp;
}

const termPatterns = (terms: readonly string[]): TermPattern[] =>
  terms.map((term) => ({ term, pattern: new RegExp(`(?<![\\w$])${escapeRegExp(term)}(?![\\w$])`) }));

/** A report term a call's line holds, besides the callee's and the caller's own names. */
function handedAt(lineText: string | undefined, callee: string, caller: string, terms: readonly TermPattern[]): string | undefined {
  if (lineText === undefined) return undefined;
  return terms.find((t) => t.term !== callee && t.term !== caller && t.pattern.test(lineText))?.term;
}

/** One regular expression for definitions of any of the names, in the shapes of the parsed languages. */
function definitionPattern(names: readonly string[]): RegExp {
  const n = `(${names.map(escapeRegExp).join('|')})`;
  return new RegExp(
    `\\b(?:def|function|func|class|interface|type|struct|enum|record|fn)\\s+(?:\\([^)\\n]*\\)\\s*)?${n}\\b|^[ \\t]*(?:[\\w<>\\[\\],.?@]+[ \\t]+)*${n}[ \\t]*\\([^)\\n]*\\)?[^;\\n]*\\{|(?<![\\w$.])${n}\\s*[=:]\\s*(?:async\\s+)?(?:function\\b|\\()`,
    'gm',
  );
}

interface FollowInput {
  anchors: readonly CallAnchor[];
  candidates: readonly string[];
  contents: FileContents;
  symbols: SymbolIndex;
  /** Distinct report terms and words a file holds. */
  coverageOf: (path: string) => Promise<number>;
  /** The report's terms (not its plain words): a call whose line holds one hands it to the callee. */
  terms: readonly string[];
  isTest: (path: string) => boolean;
}

/** A callee: the definition that calls it, and a report term handed to it at a call, if one is. */
interface Callee {
  from: CallAnchor;
  handed?: string;
}

/** Callee names inside the bodies of the frontier's definitions, each with the definition that calls it. */
async function calleesOf(input: FollowInput, frontier: readonly CallAnchor[], terms: readonly TermPattern[]): Promise<Map<string, Callee>> {
  const callees = new Map<string, Callee>();
  for (const a of frontier) {
    const tags = await input.symbols.tags(a.path);
    const calls = tags ? callsInBody(tags, a.line) : [];
    const lines = calls.length > 0 ? (await input.contents.text(a.path))?.split('\n') : undefined;
    for (const call of calls) {
      const name = call.name;
      if (name.length < 3 || name === a.name) continue;
      const handed = handedAt(lines?.[call.line - 1], name, a.name, terms);
      const known = callees.get(name);
      if (known) {
        if (!known.handed && handed) known.handed = handed;
      } else if (callees.size < MAX_CALLEES) callees.set(name, { from: a, ...(handed ? { handed } : {}) });
    }
  }
  return callees;
}

/** Source files that may define each name: one textual pass with one expression. */
async function mayDefine(input: FollowInput, names: readonly string[]): Promise<Map<string, Set<string>>> {
  const pattern = definitionPattern(names);
  const maybe = new Map<string, Set<string>>();
  for (const p of input.candidates) {
    if (input.isTest(p)) continue;
    const text = await input.contents.text(p);
    if (text === undefined) continue;
    for (const m of text.matchAll(pattern)) {
      const name = m[1] ?? m[2] ?? m[3];
      if (!name) continue;
      let set = maybe.get(name);
      if (!set) maybe.set(name, (set = new Set()));
      set.add(p);
    }
  }
  return maybe;
}

/**
 * One or two steps from the definitions of named symbols to what they call: the callee names
 * inside each definition's body (from the syntax tags), the files that define them (a textual
 * pass confirmed by the tags), each ranked by how many of the report's terms it holds. A name
 * defined in many files says nothing and is skipped.
 */
export async function followCalls(input: FollowInput): Promise<{ findings: CallStepFinding[]; filesParsed: number }> {
  const findings = new Map<string, CallStepFinding>();
  let filesParsed = 0;
  let frontier = input.anchors.slice(0, MAX_CALL_ANCHORS);
  const visited = new Set(frontier.map((a) => `${a.path}#${a.name}`));
  const terms = termPatterns(input.terms);
  for (let step = 1; step <= MAX_CALL_STEPS && frontier.length > 0; step++) {
    const callees = await calleesOf(input, frontier, terms);
    if (callees.size === 0) break;
    const next: CallAnchor[] = [];
    for (const [name, files] of await mayDefine(input, [...callees.keys()])) {
      if (files.size > MAX_CALLEE_FILES * 2) continue;
      const defs = (await input.symbols.definitions(name, [...files])).filter((d) => d.tag.symbolKind !== 'variable' && d.tag.symbolKind !== 'field');
      filesParsed += files.size;
      if (new Set(defs.map((d) => d.path)).size > MAX_CALLEE_FILES) continue;
      const callee = callees.get(name)!;
      const from = callee.from;
      for (const d of defs) {
        const key = `${d.path}#${name}`;
        if (visited.has(key)) continue;
        visited.add(key);
        next.push({ path: d.path, name, line: d.tag.line });
        if (d.path !== from.path && !findings.has(d.path)) findings.set(d.path, calleeFinding(d, name, callee, step, await input.coverageOf(d.path)));
      }
    }
    const cover = new Map<string, number>();
    for (const a of next) cover.set(a.path, await input.coverageOf(a.path));
    frontier = next.sort((a, b) => cover.get(b.path)! - cover.get(a.path)! || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).slice(0, MAX_CALL_ANCHORS);
  }
  return { findings: [...findings.values()], filesParsed };
}

function calleeFinding(d: { path: string; tag: SymbolTag }, name: string, callee: Callee, step: number, coverage: number): CallStepFinding {
  const { from, handed } = callee;
  const handedScore = handed ? HANDED_SCORE : 0;
  return {
    path: d.path,
    score: Math.round(((CALLEE_SCORE + handedScore + COVERAGE_SCORE * Math.min(coverage, 5)) / step) * 100) / 100,
    reason:
      `defines ${name}, called by ${from.name} (${from.path})${handed ? ` with ${handed} from the report` : ''}` +
      `${step > 1 ? `, ${step} steps from the named symbol` : ''}; holds ${coverage} of the report's terms and words`,
    evidence: { type: 'symbol', line: d.tag.line, snippet: d.tag.snippet, term: name, detail: `callee of ${from.name}` },
    coverage,
  };
}
