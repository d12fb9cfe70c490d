import type { SyntaxLanguage } from './types.js';

/** Data formats whose parse problems come from a format parser rather than tree-sitter. */
export type DataFormat = 'json' | 'jsonc' | 'yaml' | 'toml' | 'xml';

const CODE_EXTENSIONS: Record<string, SyntaxLanguage> = {
  java: 'java',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  pyi: 'python',
  go: 'go',
};

/** The tree-sitter grammar (`tree-sitter-<name>.wasm`) that parses each language; JSX is part of the javascript grammar. */
export const GRAMMAR_FOR_LANGUAGE: Record<SyntaxLanguage, string> = {
  java: 'java',
  typescript: 'typescript',
  tsx: 'tsx',
  javascript: 'javascript',
  python: 'python',
  go: 'go',
};

export const SYNTAX_LANGUAGES: readonly SyntaxLanguage[] = ['java', 'typescript', 'tsx', 'javascript', 'python', 'go'];

function baseName(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash >= 0 ? path.slice(slash + 1) : path;
}

function extension(path: string): string {
  const name = baseName(path);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** The code language of a path, by extension; `.d.ts` is TypeScript. */
export function languageForPath(path: string): SyntaxLanguage | undefined {
  return CODE_EXTENSIONS[extension(path)];
}

/** JSON files that by convention allow comments and trailing commas (so a comment is not a parse problem). */
const JSONC_NAMES = /^(tsconfig.*|jsconfig.*|\.eslintrc|devcontainer|\.devcontainer|settings|launch|tasks|extensions|\.babelrc|api-extractor|tslint|typedoc)\.json$/i;

/** The data format of a path, by name and extension (pom.xml and *.pom are XML). */
export function dataFormatForPath(path: string): DataFormat | undefined {
  const name = baseName(path);
  const ext = extension(path);
  if (ext === 'jsonc' || ext === 'json5') return 'jsonc';
  if (ext === 'json') return JSONC_NAMES.test(name) || path.includes('.vscode/') ? 'jsonc' : 'json';
  if (name === '.babelrc' || name === '.eslintrc') return 'jsonc';
  if (ext === 'yaml' || ext === 'yml') return 'yaml';
  if (ext === 'toml' || name === 'Cargo.lock' || name === 'poetry.lock' || name === 'uv.lock') return 'toml';
  if (ext === 'xml' || ext === 'pom' || ext === 'xsd' || ext === 'xsl' || ext === 'xslt' || ext === 'svg' || ext === 'plist' || ext === 'csproj' || ext === 'props') return 'xml';
  return undefined;
}
