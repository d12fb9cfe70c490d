import type { ManifestDependency } from './manifest-schema.js';
import { lineIndex, type ParsedManifest } from './parse-util.js';
import { includedPath, requirementAt } from './python-requirements.js';

/** setuptools' requirement keys of `[options]` and `setup(...)`; each is the scope of its requirements. */
const REQUIREMENT_KEYS = new Set(['install_requires', 'setup_requires', 'tests_require']);
/** A `;`-separated piece that is an environment marker, not a requirement (`foo; python_version<"3.8"` on one line). */
const MARKER = /^(python_version|python_full_version|os_name|sys_platform|platform_[a-z_]+|implementation_[a-z_]+|extra)\s*(<|>|=|!|~|in\b|not\b)/;

/** One key of a setup.cfg section with its value's pieces: the key line's text and each continuation line. */
interface CfgValue {
  section: string;
  key: string;
  pieces: { text: string; line: number }[];
}

/** Drops an inline `# comment` (setuptools ignores comment lines inside a requirement list). */
const uncommented = (text: string): string => {
  const hash = text.search(/(^|\s)#/);
  return (hash < 0 ? text : text.slice(0, hash)).trim();
};

/**
 * The keys of a setup.cfg in configparser's syntax: `[section]` headers, `key = value` or
 * `key: value`, values continued on indented lines, whole-line `#`/`;` comments. A line that is
 * none of these, a key before any section, or a section twice is malformed (`line N: …`).
 */
function cfgValues(text: string): { values: CfgValue[]; sections: Set<string> } {
  const values: CfgValue[] = [];
  const sections = new Set<string>();
  let section: string | undefined;
  let current: CfgValue | undefined;
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const n = i + 1;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) return;
    if (current && /^\s/.test(line)) {
      current.pieces.push({ text: trimmed, line: n });
      return;
    }
    if (line.startsWith('[')) {
      const end = line.lastIndexOf(']');
      if (end < 0) throw new Error(`line ${n}: section header without a closing ]`);
      section = line.slice(1, end).trim();
      if (sections.has(section)) throw new Error(`line ${n}: section [${section}] appears twice`);
      sections.add(section);
      current = undefined;
      return;
    }
    const delimiter = line.search(/[=:]/);
    const key = delimiter < 0 ? '' : line.slice(0, delimiter).trim();
    if (!key) throw new Error(`line ${n}: neither a [section], a key = value nor an indented continuation: ${trimmed.slice(0, 80)}`);
    if (section === undefined) throw new Error(`line ${n}: key ${key.slice(0, 80)} before any [section]`);
    current = { section, key, pieces: [{ text: line.slice(delimiter + 1).trim(), line: n }] };
    values.push(current);
  });
  return { values, sections };
}

/** The scope a setup.cfg key's requirements get, or undefined when the key holds none. */
function cfgScope(value: CfgValue): string | undefined {
  if (value.section === 'options.extras_require') return value.key;
  return value.section === 'options' && REQUIREMENT_KEYS.has(value.key) ? value.key : undefined;
}

/**
 * A requirement list as setuptools reads it: one requirement per line (markers after `;`), or,
 * when the whole list is on the key's line, requirements separated by `;`. `file: a.txt` names
 * requirements files (returned as includes).
 */
function cfgRequirements(value: CfgValue, scope: string, path: string, out: ParsedManifest & { includes: string[] }): void {
  const pieces = value.pieces.map((p) => ({ text: uncommented(p.text), line: p.line })).filter((p) => p.text !== '');
  const first = pieces[0];
  if (first && first.text.startsWith('file:')) {
    for (const file of first.text.slice(5).split(',')) {
      const target = includedPath(path, file.trim());
      if (target && !out.includes.includes(target)) out.includes.push(target);
    }
    return;
  }
  const single = pieces.length === 1 && first.line === value.pieces[0].line;
  const specs = single ? first.text.split(';').map((text) => ({ text: text.trim(), line: first.line })) : pieces;
  for (const spec of specs) {
    if (single && MARKER.test(spec.text)) continue;
    const dep = requirementAt(spec.text, scope, path, spec.line);
    if (dep) out.dependencies.push(dep);
  }
}

/**
 * setup.cfg: `[options]` `install_requires`, `setup_requires`, `tests_require` (scopes by key),
 * `[options.extras_require]` (scope = the extra), `[metadata]` name and version; a `[tool:pytest]`
 * section makes pytest the test runner.
 */
export function parseSetupCfg(text: string, path = ''): ParsedManifest {
  const { values, sections } = cfgValues(text);
  const out: ParsedManifest & { includes: string[] } = { dependencies: [], includes: [] };
  const facts: Record<string, string> = {};
  for (const value of values) {
    const scope = cfgScope(value);
    if (scope) cfgRequirements(value, scope, path, out);
    const written = value.pieces[0].text;
    if (value.section === 'metadata' && value.key === 'name' && written) out.name = written;
    // `version = attr: pkg.__version__` / `file: VERSION` are read by setuptools at build time.
    if (value.section === 'metadata' && value.key === 'version' && written && !/^(attr|file):/.test(written)) out.version = written;
  }
  if (sections.has('tool:pytest')) facts.testRunner = 'pytest';
  const { includes, ...rest } = out;
  return { ...rest, ...(includes.length ? { includes } : {}), facts };
}

/** setup.py is read up to this many characters; a longer one is not a hand-written setup script. */
const MAX_SETUP_PY = 256 * 1024;
/** At most this many `install_requires=`-like keywords and list elements are read. */
const MAX_KEYWORDS = 200;
const MAX_ELEMENTS = 2000;

/** A string literal's value and the offset of its opening quote. */
interface PyString {
  value: string;
  offset: number;
}

/**
 * A reader of Python literals (strings, lists, tuples, dicts of them) in a setup.py's text. It
 * only reads: anything that is not a literal (a name, a call, a comprehension) ends the literal
 * and the caller skips it.
 */
class PyLiterals {
  pos = 0;

  constructor(
    readonly s: string,
    /** Module-level `NAME = [`, `NAME = (`, `NAME = {`: where each name's literal starts (the first assignment). */
    readonly names: ReadonlyMap<string, number>,
  ) {}

  /** Blanks, newlines, comments and `\` line continuations. */
  trivia(): void {
    while (this.pos < this.s.length) {
      const c = this.s[this.pos];
      if (c === '#') {
        const end = this.s.indexOf('\n', this.pos);
        this.pos = end < 0 ? this.s.length : end;
      } else if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || (c === '\\' && this.s[this.pos + 1] === '\n')) this.pos++;
      else return;
    }
  }

  /** A string literal (prefixes r/u/b, any quotes); f-strings are code, not literals. Adjacent literals are concatenated. */
  string(): PyString | undefined {
    let first: PyString | undefined;
    for (;;) {
      const m = /^([rRuUbB]{0,2})(['"])/.exec(this.s.slice(this.pos, this.pos + 3));
      if (!m) return first;
      const offset = this.pos + m[1].length;
      const value = this.quoted(offset);
      if (value === undefined) return undefined;
      first = first ? { value: first.value + value, offset: first.offset } : { value, offset };
      const save = this.pos;
      this.trivia();
      if (!/^[rRuUbB]{0,2}['"]/.test(this.s.slice(this.pos, this.pos + 3))) {
        this.pos = save;
        return first;
      }
    }
  }

  /** The text between the quotes starting at `offset`; escapes are kept as written. */
  private quoted(offset: number): string | undefined {
    const quote = this.s[offset];
    const triple = this.s.startsWith(quote.repeat(3), offset);
    const open = triple ? 3 : 1;
    for (let i = offset + open; i < this.s.length; i++) {
      const c = this.s[i];
      if (c === '\\') i++;
      else if (c === '\n' && !triple) return undefined;
      else if (c === quote && (!triple || this.s.startsWith(quote.repeat(3), i))) {
        this.pos = i + open;
        return this.s.slice(offset + open, i);
      }
    }
    return undefined;
  }

  /** `[ "a", "b", ]` or `("a", "b")`; undefined when an element is not a string literal. */
  list(): PyString[] | undefined {
    const close = this.s[this.pos] === '[' ? ']' : this.s[this.pos] === '(' ? ')' : undefined;
    if (!close) return undefined;
    this.pos++;
    const items: PyString[] = [];
    while (items.length <= MAX_ELEMENTS) {
      this.trivia();
      if (this.s[this.pos] === close) {
        this.pos++;
        return items;
      }
      const item = this.string();
      if (!item) return undefined;
      items.push(item);
      this.trivia();
      if (this.s[this.pos] === ',') this.pos++;
      else if (this.s[this.pos] !== close) return undefined;
    }
    return undefined;
  }

  /** Past one expression: to the `,` or closing bracket that ends it (strings and brackets skipped whole). */
  skipExpression(): void {
    let depth = 0;
    while (this.pos < this.s.length) {
      const c = this.s[this.pos];
      if (c === '"' || c === "'") {
        if (this.quoted(this.pos) === undefined) this.pos++;
        continue;
      }
      if (c === '#') this.trivia();
      else if ('([{'.includes(c)) depth++;
      else if (')]}'.includes(c)) {
        if (depth === 0) return;
        depth--;
      } else if (c === ',' && depth === 0) return;
      this.pos++;
    }
  }
}

/** What a setup.py keyword's value reads as: the requirement strings of each scope. */
type Lists = { scope: string; items: PyString[] }[];

/** Every module-level `NAME = [` (or `(`, `{`) of the script, read once: where a keyword's `install_requires=NAME` points. */
function moduleLiterals(text: string): Map<string, number> {
  const names = new Map<string, number>();
  const assignment = /^([A-Za-z_]\w{0,99})[ \t]*=[ \t]*(?=[[({])/gm;
  for (let m = assignment.exec(text); m; m = assignment.exec(text)) if (!names.has(m[1])) names.set(m[1], m.index + m[0].length);
  return names;
}

/** True when the value that ended at `end` is the whole value (`, ) }` or the line's end follow): `DEV + [...]` is code. */
function endsValue(s: string, end: number): boolean {
  const rest = /^[ \t]*(\\\n[ \t]*)?(.?)/.exec(s.slice(end, end + 200))!;
  return rest[2] === '' || ',)}]\n\r#'.includes(rest[2]);
}

/** The literal at the reader's position, or the module-level one a bare name there refers to. */
function literalStart(reader: PyLiterals, openers: string): number | undefined {
  const c = reader.s[reader.pos];
  if (c !== undefined && openers.includes(c)) return reader.pos;
  const name = /^[A-Za-z_]\w{0,99}(?![\w.[(])/.exec(reader.s.slice(reader.pos, reader.pos + 101))?.[0];
  if (!name || !endsValue(reader.s, reader.pos + name.length)) return undefined;
  const at = reader.names.get(name);
  return at !== undefined && openers.includes(reader.s[at]) ? at : undefined;
}

/** A literal list at `start` that is the whole value (not `[...] + more`); undefined otherwise. */
function listAt(script: PyLiterals, start: number): PyString[] | undefined {
  const s = script.s;
  const reader = new PyLiterals(s, script.names);
  reader.pos = start;
  const items = reader.list();
  return items && endsValue(s, reader.pos) ? items : undefined;
}

/** `extras_require={"x": [...], 'y': NAME}`: each entry whose value is a literal list. */
function extrasAt(script: PyLiterals, start: number, lists: Lists): void {
  const s = script.s;
  const reader = new PyLiterals(s, script.names);
  reader.pos = start + 1;
  for (let n = 0; n < MAX_ELEMENTS && reader.pos < s.length; n++) {
    reader.trivia();
    if (s[reader.pos] === '}') return;
    const key = reader.string();
    reader.trivia();
    if (!key || s[reader.pos] !== ':') return;
    reader.pos++;
    reader.trivia();
    const from = reader.pos;
    const at = literalStart(reader, '[(');
    const items = at === undefined ? undefined : listAt(script, at);
    if (items) lists.push({ scope: key.value, items });
    reader.pos = from;
    reader.skipExpression();
    if (s[reader.pos] !== ',') return;
    reader.pos++;
  }
}

/**
 * setup.py, read as text and never run: the literal lists given to `install_requires`,
 * `setup_requires`, `tests_require` and `extras_require` (as keywords or dict keys), or the
 * module-level literal a bare name there refers to. A list built by code (a call, a
 * comprehension, `open(...).read().splitlines()`) is skipped.
 */
export function parseSetupPy(text: string, path = ''): ParsedManifest {
  const s = text.slice(0, MAX_SETUP_PY);
  const names = moduleLiterals(s);
  const keyword = /\b(install_requires|setup_requires|tests_require|extras_require)\b["']?[ \t]*[=:][ \t]*/g;
  const lists: Lists = [];
  const seen = new Set<number>();
  let count = 0;
  for (let m = keyword.exec(s); m && count < MAX_KEYWORDS; m = keyword.exec(s), count++) {
    const reader = new PyLiterals(s, names);
    reader.pos = m.index + m[0].length;
    if (s[reader.pos] === '=') continue;
    reader.trivia();
    const extras = m[1] === 'extras_require';
    const start = literalStart(reader, extras ? '{' : '[(');
    if (start === undefined || seen.has(start)) continue;
    seen.add(start);
    if (extras) extrasAt(reader, start, lists);
    else {
      const items = listAt(reader, start);
      if (items) lists.push({ scope: m[1], items });
    }
  }
  const lineOf = lineIndex(s);
  const dependencies: ManifestDependency[] = [];
  for (const { scope, items } of lists) {
    for (const item of items) {
      const dep = requirementAt(item.value, scope, path, lineOf(item.offset));
      if (dep) dependencies.push(dep);
    }
  }
  return { dependencies };
}
