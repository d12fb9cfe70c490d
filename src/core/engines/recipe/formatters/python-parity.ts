import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import type { Workspace } from '../../../workspace/workspace.js';
import type { DeclaredFormatter, ParityContext } from './formatter-parity.js';
import { loadRuffFormat, type RuffConfig } from './wasm-formatters.js';

/**
 * Black or ruff's formatter, where the project declares one: a `[tool.black]` or `[tool.ruff]`
 * table in pyproject.toml, a ruff.toml with a `[format]` table, a pre-commit hook (`black`,
 * `ruff-format`), or a root requirements file that installs black. A project that runs ruff only
 * as a linter is caught by the parity rule: its files are not formatter-clean, so none moves. Both print the same style; ruff's formatter runs
 * in-process from wasm with the options the project sets (line length, quote style, magic
 * trailing comma, indentation).
 */

type Table = Record<string, unknown>;

interface PythonSetup {
  tool: 'black' | 'ruff format';
  source: string;
  config: RuffConfig;
}

const isPython = (path: string) => path.endsWith('.py') || path.endsWith('.pyi');

function table(value: unknown): Table | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Table) : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 1000 ? value : undefined;
}

function definedOnly(config: Record<string, unknown>): RuffConfig {
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as RuffConfig;
}

/** Black's options (`line-length`, `skip-string-normalization`, `skip-magic-trailing-comma`) in ruff's terms. */
function blackConfig(black: Table): RuffConfig {
  return definedOnly({
    line_width: num(black['line-length']) ?? 88,
    quote_style: black['skip-string-normalization'] === true ? 'preserve' : undefined,
    magic_trailing_comma: black['skip-magic-trailing-comma'] === true ? 'ignore' : undefined,
  });
}

/** ruff's options: the top-level `line-length` and `indent-width`, and its `[format]` table. */
function ruffConfig(ruff: Table): RuffConfig {
  const format = table(ruff.format) ?? {};
  const quote = format['quote-style'];
  const indent = format['indent-style'];
  return definedOnly({
    line_width: num(ruff['line-length']) ?? 88,
    indent_width: num(ruff['indent-width']),
    quote_style: quote === 'single' || quote === 'double' || quote === 'preserve' ? quote : undefined,
    indent_style: indent === 'tab' || indent === 'space' ? indent : undefined,
    magic_trailing_comma: format['skip-magic-trailing-comma'] === true ? 'ignore' : undefined,
    docstring_code: format['docstring-code-format'] === true ? true : undefined,
  });
}

async function readToml(workspace: Workspace, path: string): Promise<Table | undefined> {
  if (!workspace.entry(path)) return undefined;
  try {
    return parseToml(await workspace.readText(path));
  } catch {
    return undefined;
  }
}

/** The formatter pre-commit runs, by hook id. */
async function preCommitTool(workspace: Workspace): Promise<PythonSetup['tool'] | undefined> {
  const path = '.pre-commit-config.yaml';
  if (!workspace.entry(path)) return undefined;
  let config: unknown;
  try {
    config = parseYaml(await workspace.readText(path));
  } catch {
    return undefined;
  }
  const repos = table(config)?.repos;
  const ids = (Array.isArray(repos) ? repos : []).flatMap((repo) => {
    const hooks = table(repo)?.hooks;
    return (Array.isArray(hooks) ? hooks : []).map((hook) => table(hook)?.id);
  });
  if (ids.includes('ruff-format')) return 'ruff format';
  return ids.includes('black') ? 'black' : undefined;
}

const REQUIREMENTS = /(^|\/)(dev-)?requirements[\w.-]*\.txt$/;

async function requirementsInstallBlack(workspace: Workspace): Promise<string | undefined> {
  for (const path of workspace.paths().filter((p) => REQUIREMENTS.test(p) && !p.includes('/'))) {
    if (/^black\b/m.test(await workspace.readText(path))) return path;
  }
  return undefined;
}

async function pythonSetup(workspace: Workspace): Promise<PythonSetup | undefined> {
  const pyproject = await readToml(workspace, 'pyproject.toml');
  const tools = table(pyproject?.tool) ?? {};
  const ruff = table(tools.ruff);
  const black = table(tools.black);
  if (ruff && table(ruff.format)) return { tool: 'ruff format', source: 'pyproject.toml [tool.ruff.format]', config: ruffConfig(ruff) };
  for (const path of ['ruff.toml', '.ruff.toml']) {
    const own = await readToml(workspace, path);
    if (own && table(own.format)) return { tool: 'ruff format', source: path, config: ruffConfig(own) };
  }
  if (black) return { tool: 'black', source: 'pyproject.toml [tool.black]', config: blackConfig(black) };
  const hook = await preCommitTool(workspace);
  if (hook === 'ruff format') {
    const own = ruff ?? (await readToml(workspace, 'ruff.toml')) ?? (await readToml(workspace, '.ruff.toml')) ?? {};
    return { tool: hook, source: '.pre-commit-config.yaml', config: ruffConfig(own) };
  }
  if (hook === 'black') return { tool: hook, source: '.pre-commit-config.yaml', config: blackConfig({}) };
  if (ruff) return { tool: 'ruff format', source: 'pyproject.toml [tool.ruff]', config: ruffConfig(ruff) };
  const requirements = await requirementsInstallBlack(workspace);
  return requirements ? { tool: 'black', source: requirements, config: blackConfig({}) } : undefined;
}

/** The Python formatter the project declares, when a changed file is Python. */
export async function declaredPythonFormatter({ workspace, loadWasm }: ParityContext, changed: readonly string[]): Promise<DeclaredFormatter | undefined> {
  if (!changed.some(isPython)) return undefined;
  const setup = await pythonSetup(workspace);
  if (!setup) return undefined;
  const format = await loadRuffFormat(loadWasm);
  return {
    label: `${setup.tool} (options from ${setup.source})`,
    handles: isPython,
    format(text, path) {
      try {
        return Promise.resolve(format(text, path, setup.config));
      } catch {
        return Promise.resolve(undefined);
      }
    },
  };
}
