import type { SyntaxLanguage } from './types.js';

/** Data formats whose parse problems come from a format parser rather than tree-sitter. */
export type DataFormat = 'json' | 'jsonc' | 'yaml' | 'toml' | 'xml';

const CODE_EXTENSIONS: Record<string, SyntaxLanguage> = {
  java: 'java',
  kt: 'kotlin',
  kts: 'kotlin',
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
  kotlin: 'kotlin',
  typescript: 'typescript',
  tsx: 'tsx',
  javascript: 'javascript',
  python: 'python',
  go: 'go',
};

export const SYNTAX_LANGUAGES: readonly SyntaxLanguage[] = ['java', 'kotlin', 'typescript', 'tsx', 'javascript', 'python', 'go'];

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
const JSONC_NAMES =
  /^(tsconfig.*|jsconfig.*|\.eslintrc|devcontainer|\.devcontainer|settings|launch|tasks|extensions|\.babelrc|api-extractor|tslint|typedoc)\.json$/i;

/** Data formats by extension (pom.xml and *.pom are XML); `json` is decided by name. */
const FORMAT_BY_EXTENSION = new Map<string, DataFormat>([
  ['jsonc', 'jsonc'],
  ['json5', 'jsonc'],
  ['yaml', 'yaml'],
  ['yml', 'yaml'],
  ['toml', 'toml'],
  ...['xml', 'pom', 'xsd', 'xsl', 'xslt', 'svg', 'plist', 'csproj', 'props'].map((ext) => [ext, 'xml'] as [string, DataFormat]),
]);

/** Data formats of names whatever their extension. */
const FORMAT_BY_NAME = new Map<string, DataFormat>([
  ['.babelrc', 'jsonc'],
  ['.eslintrc', 'jsonc'],
  ['Cargo.lock', 'toml'],
  ['poetry.lock', 'toml'],
  ['uv.lock', 'toml'],
]);

/** The data format of a path, by name and extension (pom.xml and *.pom are XML). */
export function dataFormatForPath(path: string): DataFormat | undefined {
  const name = baseName(path);
  const ext = extension(path);
  if (ext === 'json') return JSONC_NAMES.test(name) || path.includes('.vscode/') ? 'jsonc' : 'json';
  return FORMAT_BY_EXTENSION.get(ext) ?? FORMAT_BY_NAME.get(name);
}
