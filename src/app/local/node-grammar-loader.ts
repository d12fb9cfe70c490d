import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createSyntaxService, type TreeSyntaxService } from '../../core/syntax/create-syntax-service.js';
import type { GrammarLoader, SyntaxLanguage } from '../../core/syntax/types.js';

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
 * Where the installed packages keep each file: the runtime comes with its JavaScript glue
 * (`web-tree-sitter`), the grammars from `@vscode/tree-sitter-wasm`, whose builds are the grammar
 * projects' own releases (newer and faster than the `tree-sitter-wasms` builds; see
 * docs/architecture.md). The Lambda packaging copies the same files (infra/esbuild-plugins.cjs).
 */
export function installedWasmPath(name: string): string {
  return name === 'tree-sitter' ? 'web-tree-sitter/tree-sitter.wasm' : `@vscode/tree-sitter-wasm/wasm/tree-sitter-${name}.wasm`;
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
