import * as babel from 'prettier/plugins/babel';
import * as estree from 'prettier/plugins/estree';
import * as typescript from 'prettier/plugins/typescript';
import { format } from 'prettier/standalone';
import { parse as parseYaml } from 'yaml';
import type { Workspace } from '../../../workspace/workspace.js';
import type { DeclaredFormatter, ParityContext } from './formatter-parity.js';

/**
 * Prettier, where the repository declares it (a dependency, a `prettier` key, or a `.prettierrc`
 * in JSON or YAML), for JavaScript and TypeScript; it runs in-process from its standalone build.
 * A configuration written in JavaScript cannot be read and is said so.
 */

const CONFIG_FILES = ['.prettierrc', '.prettierrc.json', '.prettierrc.yaml', '.prettierrc.yml'];
const SCRIPT_CONFIGS = [
  '.prettierrc.js',
  '.prettierrc.cjs',
  '.prettierrc.mjs',
  'prettier.config.js',
  'prettier.config.cjs',
  'prettier.config.mjs',
  '.prettierrc.ts',
];
/** Options a Prettier configuration may set that the standalone build honours for JS/TS (the rest is ignored). */
const KNOWN_OPTIONS = new Set([
  'printWidth',
  'tabWidth',
  'useTabs',
  'semi',
  'singleQuote',
  'quoteProps',
  'jsxSingleQuote',
  'trailingComma',
  'bracketSpacing',
  'bracketSameLine',
  'arrowParens',
  'objectWrap',
  'experimentalTernaries',
]);
const PARSER: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'babel',
  jsx: 'babel',
  mjs: 'babel',
  cjs: 'babel',
};

function parserFor(path: string): string | undefined {
  return PARSER[path.slice(path.lastIndexOf('.') + 1).toLowerCase()];
}

function pick(options: unknown): Record<string, unknown> {
  if (!options || typeof options !== 'object' || Array.isArray(options)) return {};
  return Object.fromEntries(Object.entries(options).filter(([key]) => KNOWN_OPTIONS.has(key)));
}

interface PrettierSetup {
  /** Where the options come from (`.prettierrc`, `package.json`), for the PR body. */
  source: string;
  options: Record<string, unknown>;
}

/** The root Prettier setup the repository declares, `undefined` when it declares none; `{ unreadable }` for a script configuration. */
async function prettierSetup(workspace: Workspace): Promise<PrettierSetup | { unreadable: string } | undefined> {
  const paths = new Set(workspace.paths());
  const script = SCRIPT_CONFIGS.find((p) => paths.has(p));
  if (script) return { unreadable: script };
  for (const file of CONFIG_FILES) {
    if (!paths.has(file)) continue;
    const text = await workspace.readText(file);
    try {
      return { source: file, options: pick(parseYaml(text)) };
    } catch {
      return { unreadable: file };
    }
  }
  if (!paths.has('package.json')) return undefined;
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(await workspace.readText('package.json')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof manifest.prettier === 'object' && manifest.prettier !== null) return { source: 'package.json', options: pick(manifest.prettier) };
  if (typeof manifest.prettier === 'string') return { unreadable: `package.json (prettier: "${manifest.prettier}")` };
  const declared = ['dependencies', 'devDependencies'].some((key) => {
    const section = manifest[key];
    return typeof section === 'object' && section !== null && 'prettier' in section;
  });
  return declared ? { source: 'package.json (Prettier defaults)', options: {} } : undefined;
}

/** Prettier as the project configures it, when a changed file is JavaScript or TypeScript and the project declares Prettier. */
export async function declaredPrettier({ workspace }: ParityContext, changed: readonly string[]): Promise<DeclaredFormatter | undefined> {
  if (!changed.some((p) => parserFor(p) !== undefined)) return undefined;
  const setup = await prettierSetup(workspace);
  if (!setup) return undefined;
  if ('unreadable' in setup) return { tool: 'Prettier', unreadable: setup.unreadable };
  return {
    label: `Prettier (options from ${setup.source})`,
    handles: (path) => parserFor(path) !== undefined,
    async format(text, path) {
      try {
        return await format(text, { ...setup.options, parser: parserFor(path), plugins: [babel, estree, typescript] });
      } catch {
        return undefined;
      }
    },
  };
}
