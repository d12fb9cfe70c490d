import { Language, Parser, type Tree } from 'web-tree-sitter';
import { codeParseProblems } from './code-parse-problems.js';
import { dataParseProblems } from './data-parse-problems.js';
import { compileTagQuery, extractTagsFromTree } from './extract-tags.js';
import { dataFormatForPath, GRAMMAR_FOR_LANGUAGE, languageForPath, SYNTAX_LANGUAGES } from './language-for-path.js';
import { SyntaxServiceError } from './syntax-error.js';
import type { GrammarLoader, ParseProblem, SymbolTag, SyntaxLanguage, SyntaxService } from './types.js';

/** Syntax services that also lend out a parsed tree, for the recipes that edit by syntax node. */
export interface TreeSyntaxService extends SyntaxService {
  readonly languages: readonly SyntaxLanguage[];
  /** Parse `source` and run `fn` over the tree; the tree is freed afterwards, so `fn` must not keep nodes. */
  withTree<T>(language: SyntaxLanguage, source: string, fn: (tree: Tree) => T): T;
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
 * Load the tree-sitter runtime and the grammars of `languages` (default: all six) through
 * `loadGrammar`, which supplies the wasm bytes (core reads no files). Parsing is synchronous
 * afterwards, and one parser per language is reused.
 */
export async function createSyntaxService(loadGrammar: GrammarLoader, options: { languages?: readonly SyntaxLanguage[] } = {}): Promise<TreeSyntaxService> {
  await initRuntime(loadGrammar);
  const wanted = options.languages ?? SYNTAX_LANGUAGES;
  const parsers = new Map<SyntaxLanguage, Parser>();
  const byGrammar = new Map<string, Language>();
  for (const language of wanted) {
    const grammar = GRAMMAR_FOR_LANGUAGE[language];
    let loaded = byGrammar.get(grammar);
    if (!loaded) {
      try {
        loaded = await Language.load(await loadGrammar(grammar));
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

  return {
    languages: [...parsers.keys()],
    languageFor,
    withTree,
    extractTags(path: string, source: string): SymbolTag[] {
      const language = languageFor(path);
      return language ? withTree(language, source, (tree) => extractTagsFromTree(language, tree, source)) : [];
    },
    parseProblems(path: string, source: string): ParseProblem[] {
      const language = languageFor(path);
      if (language) return withTree(language, source, (tree) => codeParseProblems(tree, source));
      const format = dataFormatForPath(path);
      return format ? dataParseProblems(format, source) : [];
    },
  };
}
