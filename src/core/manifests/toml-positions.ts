import { parse as parseToml, TomlError } from 'smol-toml';
import { record } from './parse-util.js';

/**
 * Lines of a TOML document's keys, tables and array elements. smol-toml gives values without
 * positions, so one linear pass over the text (after smol-toml accepted it) records where each
 * key path is written: `tool.poetry.dependencies.requests`, `project.dependencies.3` (the fourth
 * element of the array), `tool.poetry.dependencies.foo.0.version` (a key inside an inline table
 * of an array). The first place a path is written wins.
 */
export interface TomlPositions {
  /** 1-based line where the key, table header or array element at `path` is written. */
  line(path: readonly (string | number)[]): number | undefined;
}

/** A TOML document's values; a syntax error becomes `line N: …` (the manifest's parse error). */
export function readToml(text: string): Record<string, unknown> {
  try {
    return record(parseToml(text));
  } catch (error) {
    if (error instanceof TomlError) throw new Error(`line ${error.line}: ${error.message.replace(/^Invalid TOML document: /, '').split('\n')[0]}`);
    throw error;
  }
}

const SEP = '\u0000';
/** Key paths are ids: their segments joined by NUL (which no TOML key holds unescaped). */
const child = (parent: string, segment: string): string => (parent === '' ? segment : `${parent}${SEP}${segment}`);
const BARE_KEY = /[A-Za-z0-9_-]/;
/** Deeper values are not expected in a manifest; the scan refuses them instead of recursing without end. */
const MAX_DEPTH = 64;

export function tomlPositions(text: string): TomlPositions {
  const lines = new Map<string, number>();
  new Scanner(text, lines).document();
  return { line: (path) => lines.get(path.map(String).join(SEP)) };
}

class Scanner {
  private pos = 0;
  private lineNo = 1;

  constructor(
    private readonly s: string,
    private readonly lines: Map<string, number>,
  ) {}

  document(): void {
    let table = '';
    const arrayTables = new Map<string, number>();
    while (this.pos < this.s.length) {
      const start = this.pos;
      this.trivia(true);
      if (this.pos >= this.s.length) break;
      if (this.s[this.pos] === '[') {
        const double = this.s[this.pos + 1] === '[';
        this.pos += double ? 2 : 1;
        table = this.key('');
        if (double) {
          // `[[x]]` tables: the nth header is element n of the array `x`.
          const n = arrayTables.get(table) ?? 0;
          arrayTables.set(table, n + 1);
          table = child(table, String(n));
        }
        this.record(table);
        this.skipLine();
      } else {
        const key = this.key(table);
        this.record(key);
        this.spaces();
        if (this.s[this.pos] === '=') this.pos++;
        this.spaces();
        this.value(key, 0);
      }
      if (this.pos === start) this.pos++;
    }
  }

  private record(id: string): void {
    if (!this.lines.has(id)) this.lines.set(id, this.lineNo);
  }

  private spaces(): void {
    while (this.s[this.pos] === ' ' || this.s[this.pos] === '\t') this.pos++;
  }

  /** Blanks and comments, and newlines when `newlines`. */
  private trivia(newlines: boolean): void {
    for (;;) {
      this.spaces();
      const c = this.s[this.pos];
      if (c === '#') {
        const end = this.s.indexOf('\n', this.pos);
        this.pos = end < 0 ? this.s.length : end;
      } else if (newlines && (c === '\n' || c === '\r')) {
        if (c === '\n') this.lineNo++;
        this.pos++;
      } else return;
    }
  }

  private skipLine(): void {
    const end = this.s.indexOf('\n', this.pos);
    this.pos = end < 0 ? this.s.length : end;
  }

  /** A dotted key under `parent`: bare, "basic" and 'literal' segments (escapes are kept as written). */
  private key(parent: string): string {
    let id = parent;
    for (;;) {
      this.spaces();
      const c = this.s[this.pos];
      if (c === '"' || c === "'") {
        const from = this.pos + 1;
        this.string();
        id = child(id, this.s.slice(from, this.pos - 1));
      } else {
        const from = this.pos;
        while (this.pos < this.s.length && BARE_KEY.test(this.s[this.pos])) this.pos++;
        if (this.pos === from) return id;
        id = child(id, this.s.slice(from, this.pos));
      }
      this.spaces();
      if (this.s[this.pos] !== '.') return id;
      this.pos++;
    }
  }

  /** Past one string at `pos` (basic, literal, or either multi-line form), counting its newlines. */
  private string(): void {
    const quote = this.s[this.pos];
    const triple = this.s.startsWith(quote.repeat(3), this.pos);
    this.pos += triple ? 3 : 1;
    while (this.pos < this.s.length) {
      const c = this.s[this.pos];
      if (c === '\\' && quote === '"') {
        if (this.s[this.pos + 1] === '\n') this.lineNo++;
        this.pos += 2;
        continue;
      }
      if (c === '\n') {
        if (!triple) return;
        this.lineNo++;
      }
      if (c === quote && (!triple || this.s.startsWith(quote.repeat(3), this.pos))) {
        this.pos += triple ? 3 : 1;
        // A multi-line string may end with up to two more quotes of its kind.
        while (triple && this.s[this.pos] === quote) this.pos++;
        return;
      }
      this.pos++;
    }
  }

  private value(path: string, depth: number): void {
    if (depth > MAX_DEPTH) throw new Error(`line ${this.lineNo}: values nested deeper than ${MAX_DEPTH}`);
    const c = this.s[this.pos];
    if (c === '"' || c === "'") this.string();
    else if (c === '[') this.array(path, depth);
    else if (c === '{') this.inlineTable(path, depth);
    else while (this.pos < this.s.length && !',]}\n#'.includes(this.s[this.pos])) this.pos++;
  }

  private array(path: string, depth: number): void {
    this.pos++;
    for (let i = 0; this.pos < this.s.length; i++) {
      this.trivia(true);
      if (this.s[this.pos] === ']') {
        this.pos++;
        return;
      }
      const start = this.pos;
      const element = child(path, String(i));
      this.record(element);
      this.value(element, depth + 1);
      this.trivia(true);
      if (this.s[this.pos] === ',') this.pos++;
      else if (this.pos === start) this.pos++;
    }
  }

  private inlineTable(path: string, depth: number): void {
    this.pos++;
    while (this.pos < this.s.length) {
      this.trivia(true);
      if (this.s[this.pos] === '}') {
        this.pos++;
        return;
      }
      const start = this.pos;
      const key = this.key(path);
      this.record(key);
      this.spaces();
      if (this.s[this.pos] === '=') this.pos++;
      this.spaces();
      this.value(key, depth + 1);
      this.trivia(true);
      if (this.s[this.pos] === ',') this.pos++;
      else if (this.pos === start) this.pos++;
    }
  }
}
