import { Language, Parser, type Tree } from 'web-tree-sitter';
import { codeParseProblems } from './code-parse-problems.js';
import { dataParseProblems } from './data-parse-problems.js';
import { compileTagQuery, extractTagsFromTree } from './extract-tags.js';
import { dataFormatForPath, GRAMMAR_FOR_LANGUAGE, languageForPath, SYNTAX_LANGUAGES } from './language-for-path.js';
import { SyntaxServiceError } from './syntax-error.js';
import type { GrammarLoader, ParseProblem, SymbolTag, SyntaxLanguage, SyntaxService } from './types.js';
import { WARM_UP_RUNS, WARM_UP_SAMPLES } from './warm-up-samples.js';
import { sha256Hex } from '../util/digest.js';

/** Syntax services that also lend out a parsed tree, for the recipes that edit by syntax node. */
export interface TreeSyntaxService extends SyntaxService {
  readonly languages: readonly SyntaxLanguage[];
  /** Parse `source` and run `fn` over the tree; the tree is freed afterwards, so `fn` must not keep nodes. */
  withTree<T>(language: SyntaxLanguage, source: string, fn: (tree: Tree) => T): T;
  /** The loader the grammars came from; it supplies the other wasm tools too (the formatters). */
  readonly loadWasm: GrammarLoader;
}

/**
 * The runtime is a process-wide wasm module: initialise it once, whatever the number of services.
 * A failed initialisation is forgotten so that a later call can try again.
 */
let runtimeReady: Promise<void> | undefined;

function initRuntime(loadGrammar: GrammarLoader): Promise<void> {
  runtimeReady ??= (async () => {
    const wasmBinary = await loadGrammar('tree-sitter');
    await Parser.init({ wasmBinary } as unknown as Parameters<typeof Parser.init>[0]);
  })().catch((cause: unknown) => {
    runtimeReady = undefined;
    throw new SyntaxServiceError('RUNTIME_LOAD_FAILED', 'the tree-sitter runtime could not be loaded', {}, { cause });
  });
  return runtimeReady;
}

/**
 * Grammars compiled in this process, by name and content: the same wasm is compiled once (and its
 * tag query with it, which is cached per grammar), whichever service asks for it. A compiled
 * grammar holds no parse state; each service makes its own parsers. A failed load is forgotten.
 */
const compiledGrammars = new Map<string, Promise<Language>>();

function loadLanguage(grammar: string, bytes: Uint8Array): Promise<Language> {
  const key = `${grammar}:${sha256Hex(bytes)}`;
  let loading = compiledGrammars.get(key);
  if (!loading) {
    loading = Language.load(bytes);
    loading.catch(() => compiledGrammars.delete(key));
    compiledGrammars.set(key, loading);
  }
  return loading;
}

export interface SyntaxServiceOptions {
  /** Default: all six. */
  languages?: readonly SyntaxLanguage[];
  /**
   * Tag a short sample per language at load. The engine runs a grammar's wasm with its baseline
   * compiler first and optimises a hot function in the background only after it has run for a
   * while; warming starts that work at load, so that it overlaps the caller's I/O (an ingestion)
   * rather than its first files. Worth it before a whole-repository map, with `languages`
   * limited to those the repository has; for a handful of files the first passes are slower
   * anyway, and the warm-up is wasted (see bench/README.md, "Performance notes", for the figures).
   */
  warm?: boolean;
}

/**
 * Load the tree-sitter runtime and the grammars of `languages` through `loadGrammar`, which
 * supplies the wasm bytes (core reads no files). Parsing is synchronous afterwards, and one
 * parser per language is reused.
 */
export async function createSyntaxService(loadGrammar: GrammarLoader, options: SyntaxServiceOptions = {}): Promise<TreeSyntaxService> {
  await initRuntime(loadGrammar);
  const wanted = options.languages ?? SYNTAX_LANGUAGES;
  const parsers = new Map<SyntaxLanguage, Parser>();
  const byGrammar = new Map<string, Language>();
  for (const language of wanted) {
    const grammar = GRAMMAR_FOR_LANGUAGE[language];
    let loaded = byGrammar.get(grammar);
    if (!loaded) {
      try {
        loaded = await loadLanguage(grammar, await loadGrammar(grammar));
      } catch (cause) {
        throw new SyntaxServiceError('GRAMMAR_LOAD_FAILED', `the ${grammar} grammar could not be loaded`, { grammar }, { cause });
      }
      byGrammar.set(grammar, loaded);
    }
    parsers.set(language, new Parser().setLanguage(loaded));
    try {
      // Compiled now, so that a grammar that does not fit its tag query fails the load, not a later file.
      compileTagQuery(language, loaded);
    } catch (cause) {
      throw new SyntaxServiceError('TAG_QUERY_INVALID', `the ${language} tag query does not fit the ${grammar} grammar`, { language, grammar }, { cause });
    }
  }

  const withTree = <T>(language: SyntaxLanguage, source: string, fn: (tree: Tree) => T): T => {
    const parser = parsers.get(language);
    if (!parser) throw new SyntaxServiceError('GRAMMAR_LOAD_FAILED', `no grammar loaded for ${language}`, { language });
    parser.reset();
    const tree = parser.parse(source);
    if (!tree) throw new SyntaxServiceError('PARSE_FAILED', `the ${language} parser returned no tree`, { language });
    try {
      return fn(tree);
    } finally {
      tree.delete();
    }
  };

  const languageFor = (path: string): SyntaxLanguage | undefined => {
    const language = languageForPath(path);
    return language && parsers.has(language) ? language : undefined;
  };

  const tagsOf = (language: SyntaxLanguage, source: string): SymbolTag[] => withTree(language, source, (tree) => extractTagsFromTree(language, tree, source));
  if (options.warm) for (const language of parsers.keys()) for (let run = 0; run < WARM_UP_RUNS; run++) tagsOf(language, WARM_UP_SAMPLES[language]);

  return {
    languages: [...parsers.keys()],
    loadWasm: loadGrammar,
    languageFor,
    withTree,
    extractTags(path: string, source: string): SymbolTag[] {
      const language = languageFor(path);
      return language ? tagsOf(language, source) : [];
    },
    parseProblems(path: string, source: string): ParseProblem[] {
      const language = languageFor(path);
      if (language) return withTree(language, source, (tree) => codeParseProblems(tree, source));
      const format = dataFormatForPath(path);
      return format ? dataParseProblems(format, source) : [];
    },
  };
}
