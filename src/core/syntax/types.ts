/** Languages parsed with tree-sitter. */
export type SyntaxLanguage = 'java' | 'kotlin' | 'typescript' | 'tsx' | 'javascript' | 'python' | 'go';

/** A fact read from a syntax tree. Lines and columns are 1-based. */
export interface SymbolTag {
  kind: 'definition' | 'reference' | 'import' | 'call' | 'annotation';
  /** For definitions: what was defined. */
  symbolKind?: 'class' | 'interface' | 'enum' | 'function' | 'method' | 'field' | 'type' | 'variable' | 'module';
  /** Identifier (or, for imports, the full imported module path / qualified name). */
  name: string;
  line: number;
  column: number;
  /** For methods and fields: the enclosing type's name. For calls: the receiver text (`client` in `client.exchangeToken()`), when any. */
  scope?: string;
  receiver?: string;
  /** The source line, trimmed, at most 200 characters. */
  snippet: string;
}

export interface ParseProblem {
  line: number;
  column: number;
  message: string;
  /** Error type for clustering, e.g. "SYNTAX_ERROR", "MISSING_NODE", "JSON_PARSE". */
  type: string;
}

/** Bytes of a tree-sitter wasm file, by grammar name ("tree-sitter" for the runtime, "java", "tsx", ...). */
export type GrammarLoader = (name: string) => Promise<Uint8Array>;

/**
 * Syntax services over tree-sitter. Created once per process (grammar loading is async and
 * cached); parsing is synchronous after that.
 */
export interface SyntaxService {
  languageFor(path: string): SyntaxLanguage | undefined;
  /** Definitions, references, imports, calls and annotations of one file. */
  extractTags(path: string, source: string): SymbolTag[];
  /** Parse problems (ERROR and MISSING nodes; for data formats, parser errors). Empty when the file parses. */
  parseProblems(path: string, source: string): ParseProblem[];
}
