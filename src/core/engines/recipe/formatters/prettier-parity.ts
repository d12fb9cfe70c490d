import * as babel from 'prettier/plugins/babel';
import * as estree from 'prettier/plugins/estree';
import * as typescript from 'prettier/plugins/typescript';
import { format } from 'prettier/standalone';
import { parse as parseYaml } from 'yaml';
import type { Workspace } from '../../../workspace/workspace.js';

/**
 * Formatter parity for JavaScript and TypeScript: where the repository declares Prettier (a
 * dependency, a `prettier` key, or a `.prettierrc` in JSON or YAML), a changed file comes out as
 * Prettier would leave it, provided the file was Prettier-clean before the change under the
 * same configuration (so lines the change did not touch never move). Prettier runs in-process
 * from its standalone build; a configuration written in JavaScript cannot be read and is said so.
 */

export interface PrettierSetup {
  /** Where the options come from (`.prettierrc`, `package.json`), for the PR body. */
  source: string;
  options: Record<string, unknown>;
}

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
  'endOfLine',
  'objectWrap',
  'experimentalTernaries',
]);
/** Files larger than this are left as the recipe wrote them (formatting costs grow with size). */
const MAX_FORMAT_BYTES = 256 * 1024;

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

/** The root Prettier setup the repository declares, `undefined` when it declares none; `{ unreadable }` for a script configuration. */
export async function declaredPrettier(workspace: Workspace): Promise<PrettierSetup | { unreadable: string } | undefined> {
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

async function formatted(text: string, parser: string, options: Record<string, unknown>): Promise<string | undefined> {
  try {
    return await format(text, { ...options, parser, plugins: [babel, estree, typescript] });
  } catch {
    return undefined;
  }
}

/**
 * The text Prettier leaves for a changed file, or undefined when parity does not apply: not
 * JS/TS, too large, unparsable, or not Prettier-clean before the change (`base`).
 */
export async function prettierParity(path: string, base: string | undefined, text: string, setup: PrettierSetup): Promise<string | undefined> {
  const parser = parserFor(path);
  if (!parser || text.length > MAX_FORMAT_BYTES || (base !== undefined && base.length > MAX_FORMAT_BYTES)) return undefined;
  if (base !== undefined && (await formatted(base, parser, setup.options)) !== base) return undefined;
  const out = await formatted(text, parser, setup.options);
  return out !== undefined && out !== text ? out : undefined;
}

/**
 * Prettier parity over files a recipe changed: each JS/TS file rewritten as Prettier leaves it
 * where parity applies. Returns the notes for the PR body (which formatter, from where, which files).
 */
export async function applyPrettierParity(workspace: Workspace, changed: readonly string[]): Promise<string[]> {
  const candidates = changed.filter((p) => parserFor(p) !== undefined);
  if (candidates.length === 0) return [];
  const setup = await declaredPrettier(workspace);
  if (!setup) return [];
  if ('unreadable' in setup)
    return [`Prettier is configured in ${setup.unreadable}, which draftsman does not evaluate: the changed files were not reformatted`];
  const done: string[] = [];
  for (const path of candidates) {
    const base = workspace.baseEntry(path) ? new TextDecoder().decode(await workspace.readBase(path)) : undefined;
    const out = await prettierParity(path, base, await workspace.readText(path), setup);
    if (out === undefined) continue;
    await workspace.write(path, new TextEncoder().encode(out));
    done.push(path);
  }
  return done.length > 0 ? [`formatted as Prettier leaves them (options from ${setup.source}): ${done.join(', ')}`] : [];
}
