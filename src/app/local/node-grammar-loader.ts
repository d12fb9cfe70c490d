import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createSyntaxService, type TreeSyntaxService } from '../../core/syntax/create-syntax-service.js';
import type { GrammarLoader, SyntaxLanguage } from '../../core/syntax/types.js';
import WASM_FILES from './wasm-files.json' with { type: 'json' };

export interface NodeGrammarLoaderOptions {
  /**
   * A directory holding `tree-sitter.wasm` and `tree-sitter-<grammar>.wasm` (the Lambda package
   * copies them next to the bundle, where node_modules does not exist). The caller reads
   * `DRAFTSMAN_WASM_DIR` from its configuration and passes it here.
   */
  wasmDir?: string;
}

/** Grammar names are file-name fragments; refuse anything else rather than read an arbitrary path. */
const GRAMMAR_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * The installed file that serves the runtime and each grammar (`wasm-files.json`, which the
 * Lambda packaging reads too: infra/esbuild-plugins.cjs). The runtime comes with its JavaScript
 * glue (`web-tree-sitter`); each grammar comes from the build that tags it fastest on this
 * runtime: the grammar projects' own releases (`@vscode/tree-sitter-wasm`) for TypeScript, TSX,
 * JavaScript and Python, the older `tree-sitter-wasms` builds for Java and Go, whose current
 * releases parse 5-10 % slower (see bench/README.md, "Performance notes").
 */
export function installedWasmPath(name: string): string {
  const path = (WASM_FILES as Record<string, string | undefined>)[name];
  if (!path) throw new Error(`no wasm file for ${name}`);
  return path;
}

/** Reads the tree-sitter runtime and grammar wasm files: from `wasmDir` when given, else from the installed packages. */
export function createNodeGrammarLoader(options: NodeGrammarLoaderOptions = {}): GrammarLoader {
  const require = createRequire(import.meta.url);
  return async (name: string) => {
    if (name !== 'tree-sitter' && !GRAMMAR_NAME.test(name)) throw new Error(`not a grammar name: ${name}`);
    const fileName = name === 'tree-sitter' ? 'tree-sitter.wasm' : `tree-sitter-${name}.wasm`;
    let path: string;
    if (options.wasmDir) path = join(options.wasmDir, fileName);
    else path = require.resolve(installedWasmPath(name));
    return new Uint8Array(await readFile(path));
  };
}

/** The syntax service with grammars read from disk (node_modules or `wasmDir`). */
export function createNodeSyntaxService(options: NodeGrammarLoaderOptions & { languages?: readonly SyntaxLanguage[] } = {}): Promise<TreeSyntaxService> {
  return createSyntaxService(createNodeGrammarLoader(options), { languages: options.languages });
}
