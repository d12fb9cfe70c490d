import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { createSyntaxService, type TreeSyntaxService } from '../../core/syntax/create-syntax-service.js';
import type { GrammarLoader, SyntaxLanguage } from '../../core/syntax/types.js';
import WASM_FILES from './wasm-files.json' with { type: 'json' };

export interface NodeGrammarLoaderOptions {
  /**
   * A directory holding the wasm files under their installed names (`tree-sitter.wasm`,
   * `tree-sitter-<grammar>.wasm`, `gofmt.wasm`, `ruff_fmt_bg.wasm`: the Lambda package copies
   * them next to the bundle, where node_modules does not exist). The caller reads
   * `DRAFTSMAN_WASM_DIR` from its configuration and passes it here.
   */
  wasmDir?: string;
}

/**
 * The installed file that serves the runtime and each grammar (`wasm-files.json`, which the
 * Lambda packaging reads too: infra/esbuild-plugins.cjs). The runtime comes with its JavaScript
 * glue (`web-tree-sitter`); each grammar comes from the build that tags it fastest on this
 * runtime: the grammar projects' own releases (`@vscode/tree-sitter-wasm`) for TypeScript, TSX,
 * JavaScript and Python, the older `tree-sitter-wasms` builds for Java and Go, whose current
 * releases parse 5-10 % slower (see bench/README.md, "Performance notes"). The formatters that
 * run from wasm (gofmt, ruff's formatter) are listed there too.
 */
export function installedWasmPath(name: string): string {
  const path = Object.hasOwn(WASM_FILES, name) ? (WASM_FILES as Record<string, string>)[name] : undefined;
  if (!path) throw new Error(`no wasm file for ${name}`);
  return path;
}

/**
 * Reads the wasm files (tree-sitter runtime, grammars, formatters) by the names wasm-files.json
 * lists, and no other: from `wasmDir` when given, else from the installed packages.
 */
export function createNodeGrammarLoader(options: NodeGrammarLoaderOptions = {}): GrammarLoader {
  const require = createRequire(import.meta.url);
  return async (name: string) => {
    const installed = installedWasmPath(name);
    const path = options.wasmDir ? join(options.wasmDir, basename(installed)) : require.resolve(installed);
    return new Uint8Array(await readFile(path));
  };
}

/** The syntax service with grammars read from disk (node_modules or `wasmDir`). */
export function createNodeSyntaxService(options: NodeGrammarLoaderOptions & { languages?: readonly SyntaxLanguage[] } = {}): Promise<TreeSyntaxService> {
  return createSyntaxService(createNodeGrammarLoader(options), { languages: options.languages });
}
