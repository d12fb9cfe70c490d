import { goPackageName } from './go-package-name.js';

/**
 * The names a source file's imports bind and the names its code uses, read lexically (comments
 * and string literals blanked first), for a differential check: a change must not leave a name
 * that an import resolved before unbound after, nor (in Go, which refuses it) leave an import
 * unused. Comparing the file before and after needs no dependency resolution, and never reports
 * what was already unresolved or unused. Kotlin is read as Java is (imports, identifiers).
 */

export type NameProblem =
  | { kind: 'unresolved'; path: string; name: string; line: number; wasBoundBy: string }
  | { kind: 'unused-import'; path: string; name: string; line: number; import: string };

type Family = 'go' | 'python' | 'java' | 'js';

const FAMILY_BY_EXTENSION: Record<string, Family> = {
  go: 'go',
  py: 'python',
  pyi: 'python',
  java: 'java',
  kt: 'java',
  kts: 'java',
  js: 'js',
  mjs: 'js',
  cjs: 'js',
  jsx: 'js',
  ts: 'js',
  mts: 'js',
  cts: 'js',
  tsx: 'js',
};

/** The language family whose imports the check reads, by extension; undefined for any other file. */
export function nameCheckFamily(path: string): Family | undefined {
  const dot = path.lastIndexOf('.');
  return dot < 0 ? undefined : FAMILY_BY_EXTENSION[path.slice(dot + 1).toLowerCase()];
}

interface Binding {
  /** The import that binds the name, as written (`io/ioutil`, `a.b.C`, `./x`). */
  source: string;
  line: number;
}

interface FileNames {
  /** Local name -> the import that binds it. */
  imports: Map<string, Binding>;
  /** A wildcard import (`import a.*`, `from a import *`, Go's dot import): any name may be bound. */
  wildcard: boolean;
  /** Every identifier the code uses (outside imports), with the first line it is used on. */
  uses: Map<string, number>;
  /** Identifiers used as qualifiers (`x.` not after a dot), with their first line. */
  qualifiers: Map<string, number>;
  /** Names the file declares itself (types, functions, variables, parameters it is likely to have). */
  declared: Set<string>;
}

/** Longest file the check reads (the file-size cap bounds it anyway; this keeps the regexes linear work bounded). */
const MAX_CHARS = 4 * 1024 * 1024;

/**
 * The names a change leaves unbound, and (Go) the imports it leaves unused, in one file: each
 * problem is one the file did not have before. `before` is absent for an added file.
 */
export function introducedNameProblems(path: string, before: string | undefined, after: string): NameProblem[] {
  const family = nameCheckFamily(path);
  if (!family || after.length > MAX_CHARS || (before?.length ?? 0) > MAX_CHARS) return [];
  const now = readNames(family, after);
  const was = before === undefined ? undefined : readNames(family, before);
  return [...(was ? unboundNames(path, family, was, now) : []), ...(family === 'go' ? unusedGoImports(path, was, now) : [])];
}

/** Names an import bound before that no import or declaration binds now, though the code still uses them. */
function unboundNames(path: string, family: Family, was: FileNames, now: FileNames): NameProblem[] {
  if (now.wildcard) return [];
  const problems: NameProblem[] = [];
  for (const [name, binding] of was.imports) {
    if (now.imports.has(name) || now.declared.has(name)) continue;
    // A Go package is used as a qualifier (`ioutil.ReadAll`); everything else by its bare name.
    const usedAt = family === 'go' ? now.qualifiers.get(name) : now.uses.get(name);
    if (usedAt !== undefined) problems.push({ kind: 'unresolved', path, name, line: usedAt, wasBoundBy: binding.source });
  }
  return problems;
}

/** Go refuses an unused import: one the change added, or whose last use it removed. */
function unusedGoImports(path: string, was: FileNames | undefined, now: FileNames): NameProblem[] {
  const problems: NameProblem[] = [];
  for (const [name, binding] of now.imports) {
    if (now.qualifiers.has(name)) continue;
    if (was?.imports.has(name) && !was.qualifiers.has(name)) continue;
    problems.push({ kind: 'unused-import', path, name, line: binding.line, import: binding.source });
  }
  return problems;
}

function readNames(family: Family, text: string): FileNames {
  const code = blankLiterals(text, family);
  const lines = code.split('\n');
  const raw = text.split('\n');
  switch (family) {
    case 'go':
      return scan(lines, goImports(raw, lines), goDeclared);
    case 'python':
      return scan(lines, pythonImports(lines), pythonDeclared);
    case 'java':
      return scan(lines, javaImports(lines), javaDeclared);
    case 'js':
      return scan(lines, jsImports(raw, lines), jsDeclared);
  }
}

interface Imports {
  imports: Map<string, Binding>;
  wildcard: boolean;
  /** Lines that belong to import statements (their identifiers are not uses). */
  importLines: Set<number>;
}

function scan(lines: string[], found: Imports, declaredIn: (code: string) => Set<string>): FileNames {
  const uses = new Map<string, number>();
  const qualifiers = new Map<string, number>();
  const body: string[] = [];
  lines.forEach((line, i) => {
    if (found.importLines.has(i)) return;
    body.push(line);
    for (const m of line.matchAll(/(\.\s*)?([A-Za-z_$][\w$]*)(?=(\s*\.(?!\.))?)/g)) {
      if (m[1]) continue;
      const name = m[2];
      if (!uses.has(name)) uses.set(name, i + 1);
      if (m[3] && !qualifiers.has(name)) qualifiers.set(name, i + 1);
    }
  });
  return { imports: found.imports, wildcard: found.wildcard, uses, qualifiers, declared: declaredIn(body.join('\n')) };
}

const names = (code: string, re: RegExp) => new Set([...code.matchAll(re)].map((m) => m[1]));

function goImports(raw: string[], code: string[]): Imports {
  const imports = new Map<string, Binding>();
  const importLines = new Set<number>();
  let wildcard = false;
  let inBlock = false;
  const add = (i: number, alias: string | undefined, source: string) => {
    if (alias === '_' || source === 'C') return;
    if (alias === '.') {
      wildcard = true;
      return;
    }
    imports.set(alias ?? goPackageName(source), { source, line: i + 1 });
  };
  code.forEach((line, i) => {
    if (inBlock) {
      importLines.add(i);
      if (/^\s*\)/.test(line)) inBlock = false;
      const m = /^\s*([\w.]+\s+)?"([^"]+)"/.exec(raw[i]);
      if (m) add(i, m[1]?.trim(), m[2]);
      return;
    }
    if (/^\s*import\s*\(/.test(line)) {
      inBlock = !/\)\s*$/.test(line);
      importLines.add(i);
      return;
    }
    const single = /^\s*import\s+([\w.]+\s+)?"([^"]+)"/.exec(raw[i]);
    if (single && /^\s*import\b/.test(line)) {
      importLines.add(i);
      add(i, single[1]?.trim(), single[2]);
    }
  });
  return { imports, wildcard, importLines };
}

const goDeclared = (code: string) =>
  new Set([
    ...names(code, /\b(?:var|const|type|func)\s+([A-Za-z_]\w*)/g),
    ...names(code, /\bfunc\s*\(\s*([A-Za-z_]\w*)\s/g),
    ...names(code, /\b([A-Za-z_]\w*)\s*(?:,\s*[A-Za-z_]\w*\s*)*:=/g),
    ...names(code, /[(,]\s*([A-Za-z_]\w*)\s+[*[\]A-Za-z_.]+\s*[,)]/g),
  ]);

function pythonImports(code: string[]): Imports {
  const imports = new Map<string, Binding>();
  const importLines = new Set<number>();
  let wildcard = false;
  for (let i = 0; i < code.length; i++) {
    const line = code[i];
    const plain = /^\s*import\s+(.+)$/.exec(line);
    const from = /^\s*from\s+([\w.]+)\s+import\s+(.+)$/.exec(line);
    if (!plain && !from) continue;
    importLines.add(i);
    let list = (plain ?? from)![plain ? 1 : 2];
    // A parenthesised list, or a continued line, runs on.
    let j = i;
    const open = () => (list.includes('(') && !list.includes(')')) || /\\\s*$/.test(list);
    while (open() && j + 1 < code.length) {
      j++;
      importLines.add(j);
      list += ` ${code[j]}`;
    }
    i = j;
    for (const part of list.replace(/[()\\]/g, ' ').split(',')) {
      const m = /^\s*([\w.*]+)(?:\s+as\s+(\w+))?\s*$/.exec(part);
      if (!m) continue;
      if (m[1] === '*') {
        wildcard = true;
        continue;
      }
      const local = m[2] ?? (plain ? m[1].split('.')[0] : m[1]);
      imports.set(local, { source: plain ? m[1] : `${from![1]}.${m[1]}`, line: i + 1 });
    }
  }
  return { imports, wildcard, importLines };
}

const pythonDeclared = (code: string) =>
  new Set([
    ...names(code, /\b(?:def|class)\s+([A-Za-z_]\w*)/g),
    ...names(code, /^\s*([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)/gm),
    ...names(code, /\bfor\s+([A-Za-z_]\w*)\s+in\b/g),
    ...names(code, /\bas\s+([A-Za-z_]\w*)/g),
    ...names(code, /\bglobal\s+([A-Za-z_]\w*)/g),
  ]);

function javaImports(code: string[]): Imports {
  const imports = new Map<string, Binding>();
  const importLines = new Set<number>();
  let wildcard = false;
  code.forEach((line, i) => {
    const m = /^\s*import\s+(?:static\s+)?([\w.]+?)(\.\*)?(?:\s+as\s+(\w+))?\s*;?\s*$/.exec(line);
    if (!m) return;
    importLines.add(i);
    if (m[2]) {
      wildcard = true;
      return;
    }
    const local = m[3] ?? m[1].slice(m[1].lastIndexOf('.') + 1);
    imports.set(local, { source: m[1], line: i + 1 });
  });
  return { imports, wildcard, importLines };
}

const javaDeclared = (code: string) =>
  new Set([
    ...names(code, /\b(?:class|interface|enum|record|object|typealias|fun|val|var)\s+([A-Za-z_$][\w$]*)/g),
    ...names(code, /@interface\s+([A-Za-z_$][\w$]*)/g),
    ...names(code, /<\s*([A-Z]\w*)\s*(?:extends\b[^>]*)?>/g),
  ]);

function jsImports(raw: string[], code: string[]): Imports {
  const imports = new Map<string, Binding>();
  const importLines = new Set<number>();
  for (let i = 0; i < code.length; i++) {
    const isImport = /^\s*(?:import\b(?!\s*\()|export\s+(?:\*|\{[^}]*\})\s*from\b)/.test(code[i]);
    if (!isImport && !/\brequire\s*\(/.test(code[i])) continue;
    const { statement, source, last } = jsStatement(raw, code, i, /^\s*import\b/.test(code[i]));
    if (!source) continue;
    const bind = (local: string | undefined) => void (local && imports.set(local, { source, line: i + 1 }));
    if (/^\s*import\b/.test(code[i])) {
      for (let k = i; k <= last; k++) importLines.add(k);
      bindImportClause(/^\s*import\s+(?:type\s+)?(.*?)\s*\bfrom\b/.exec(statement)?.[1] ?? '', bind);
      i = last;
    } else if (bindRequire(statement, bind)) {
      importLines.add(i);
    }
  }
  return { imports, wildcard: false, importLines };
}

/** An import statement's text up to the line naming its module (at most 50 lines), and the module. */
function jsStatement(raw: string[], code: string[], i: number, isImport: boolean): { statement: string; source?: string; last: number } {
  let last = i;
  let statement = code[i];
  let rawStatement = raw[i];
  while (isImport && !/\bfrom\s*['"`]|^\s*import\s*['"`]/.test(rawStatement) && last + 1 < code.length && last - i < 50) {
    last++;
    statement += ` ${code[last]}`;
    rawStatement += ` ${raw[last]}`;
  }
  const source = /(?:from\s*|require\s*\(\s*|^\s*import\s*)['"`]([^'"`]+)['"`]/.exec(rawStatement)?.[1];
  return { statement, source, last };
}

/** `X`, `* as X`, `{ a, b as c, type d }` and their combinations. */
function bindImportClause(head: string, bind: (local: string | undefined) => void): void {
  bind(/\*\s*as\s+([A-Za-z_$][\w$]*)/.exec(head)?.[1]);
  bind(/^([A-Za-z_$][\w$]*)\s*(?:,|$)/.exec(head)?.[1]);
  const named = /\{([^}]*)\}/.exec(head);
  for (const part of named ? named[1].split(',') : []) {
    const m = /^(?:type\s+)?([\w$]+)(?:\s+as\s+([\w$]+))?$/.exec(part.trim());
    bind(m?.[2] ?? m?.[1]);
  }
}

/** `const x = require('m')`, `const { a, b: c } = require('m')`; whether the statement was one. */
function bindRequire(statement: string, bind: (local: string | undefined) => void): boolean {
  const single = /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\s*\(/.exec(statement);
  bind(single?.[1]);
  const destructured = /\b(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\s*\(/.exec(statement);
  for (const part of destructured ? destructured[1].split(',') : []) bind(/([\w$]+)\s*$/.exec(part.trim())?.[1]);
  return Boolean(single ?? destructured);
}

const jsDeclared = (code: string) =>
  new Set([
    ...names(code, /\b(?:function\*?|class|const|let|var|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/g),
    ...names(code, /[(,]\s*([A-Za-z_$][\w$]*)\s*(?::[^,)]*)?(?=[,)]\s*(?:=>|\{|:|,|\)))/g),
  ]);

/**
 * The text with comments and string literals replaced by spaces (newlines kept, so lines and
 * columns hold). Go raw strings and JS template literals are blanked whole (their `${}` holes
 * too: a name used only there is not seen, which can only hide a problem, never invent one).
 */
export function blankLiterals(text: string, family: Family): string {
  const out = text.split('');
  let i = 0;
  while (i < text.length) {
    const end = literalEnd(text, i, family);
    if (end === undefined) {
      i++;
      continue;
    }
    for (let k = i; k < end; k++) if (out[k] !== '\n') out[k] = ' ';
    i = end;
  }
  return out.join('');
}

const TRIPLE_QUOTES: Partial<Record<Family, string[]>> = { python: ['"""', "'''"], java: ['"""'] };

/** Where a comment or literal that starts at `i` ends (exclusive), or undefined when none starts there. */
function literalEnd(text: string, i: number, family: Family): number | undefined {
  const c = text[i];
  const hash = family === 'python';
  const upTo = (found: number, length: number) => (found < 0 ? text.length : found + length);
  if ((hash && c === '#') || (!hash && text.startsWith('//', i))) return upTo(text.indexOf('\n', i), 0);
  if (!hash && text.startsWith('/*', i)) return upTo(text.indexOf('*/', i + 2), 2);
  const block = TRIPLE_QUOTES[family]?.find((q) => text.startsWith(q, i));
  if (block) return upTo(text.indexOf(block, i + 3), 3);
  if (c === '`' && (family === 'go' || family === 'js')) return upTo(text.indexOf('`', i + 1), 1);
  if (c !== '"' && c !== "'") return undefined;
  let k = i + 1;
  while (k < text.length && text[k] !== c && text[k] !== '\n') k += text[k] === '\\' ? 2 : 1;
  return Math.min(k + 1, text.length);
}
