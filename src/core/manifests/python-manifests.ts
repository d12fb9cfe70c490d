import type { ManifestDependency } from './manifest-schema.js';
import { record, str, type ParsedManifest } from './parse-util.js';
import { requirementAt } from './python-requirements.js';
import { readToml, tomlPositions, type TomlPositions } from './toml-positions.js';

export { parseRequirement, parseRequirements, pep508 } from './python-requirements.js';
export { parseSetupCfg, parseSetupPy } from './python-setup-files.js';

type Path = readonly string[];

/** What every pyproject reader needs: where things are written and where dependencies go. */
interface PyprojectScan {
  path: string;
  at: TomlPositions;
  out: ManifestDependency[];
}

/** An array of PEP 508 strings at `where`; tables in it (`{include-group = "…"}`) are not requirements. */
function requirementList(scan: PyprojectScan, list: unknown, where: Path, scope: string): void {
  if (!Array.isArray(list)) return;
  list.forEach((item, i) => {
    if (typeof item !== 'string') return;
    const dep = requirementAt(item, scope, scan.path, scan.at.line([...where, String(i)]));
    if (dep) scan.out.push(dep);
  });
}

/** Tables of named requirement lists: optional dependencies, dependency groups, flit's extras. */
function requirementGroups(scan: PyprojectScan, groups: unknown, where: Path): void {
  for (const [group, list] of Object.entries(record(groups))) requirementList(scan, list, [...where, group], group);
}

/** One Poetry constraint: `"^1.2"`, `{version = "^1.2", extras = […]}`, `{path = "../lib"}`, `{git = "…"}`. */
function poetryConstraint(scan: PyprojectScan, name: string, spec: unknown, scope: string, line: number | undefined, versionLine: number | undefined): void {
  const table = record(spec);
  const target = str(table.path);
  const version = str(spec) ?? (target || str(table.git) || str(table.url) ? undefined : str(table.version));
  const dep: ManifestDependency = { name, scope, kind: target ? 'path' : 'dependency' };
  if (version !== undefined) dep.version = version;
  if (target) dep.target = target;
  if (line) dep.line = line;
  if (version !== undefined && versionLine) dep.versionAt = { path: scan.path, line: versionLine };
  scan.out.push(dep);
}

/**
 * A Poetry dependency table (`[tool.poetry.dependencies]`, `dev-dependencies`, a group's). A list
 * of constraint tables (`foo = [{version = "1", python = "<3.8"}, {version = "2", python = ">=3.8"}]`)
 * gives one dependency per table, each with its own line, so a bump sees every version written.
 */
function poetryTable(scan: PyprojectScan, deps: unknown, where: Path, scope: string): void {
  for (const [name, spec] of Object.entries(record(deps))) {
    if (name === 'python') continue;
    const key = [...where, name];
    const line = scan.at.line(key);
    if (Array.isArray(spec)) {
      spec.forEach((constraint, i) => {
        const at = scan.at.line([...key, String(i)]) ?? line;
        poetryConstraint(scan, name, constraint, scope, at, scan.at.line([...key, String(i), 'version']) ?? at);
      });
    } else poetryConstraint(scan, name, spec, scope, line, typeof spec === 'string' ? line : (scan.at.line([...key, 'version']) ?? line));
  }
}

function poetryDependencies(scan: PyprojectScan, poetry: Record<string, unknown>): void {
  poetryTable(scan, poetry.dependencies, ['tool', 'poetry', 'dependencies'], 'main');
  poetryTable(scan, poetry['dev-dependencies'], ['tool', 'poetry', 'dev-dependencies'], 'dev');
  for (const [group, body] of Object.entries(record(poetry.group)))
    poetryTable(scan, record(body).dependencies, ['tool', 'poetry', 'group', group, 'dependencies'], group);
}

/** Older tools' tables: flit's `[tool.flit.metadata]`, PDM's and uv's development dependencies. */
function toolDependencies(scan: PyprojectScan, tool: Record<string, unknown>): void {
  const flit = record(record(tool.flit).metadata);
  requirementList(scan, flit.requires, ['tool', 'flit', 'metadata', 'requires'], 'main');
  requirementGroups(scan, flit['requires-extra'], ['tool', 'flit', 'metadata', 'requires-extra']);
  requirementGroups(scan, record(tool.pdm)['dev-dependencies'], ['tool', 'pdm', 'dev-dependencies']);
  requirementList(scan, record(tool.uv)['dev-dependencies'], ['tool', 'uv', 'dev-dependencies'], 'dev');
}

/**
 * pyproject.toml: PEP 621 `[project]` dependencies and extras, PEP 735 `[dependency-groups]`,
 * `[build-system].requires`, Poetry's tables, and flit/PDM/uv's own. Scopes: `main` for the
 * project's (and Poetry's main) dependencies, the extra's or group's name, `dev`, `build-system`.
 */
export function parsePyproject(text: string, path = ''): ParsedManifest {
  const doc = readToml(text);
  const scan: PyprojectScan = { path, at: tomlPositions(text), out: [] };
  const project = record(doc.project);
  const tool = record(doc.tool);
  const poetry = record(tool.poetry);
  const build = record(doc['build-system']);
  requirementList(scan, project.dependencies, ['project', 'dependencies'], 'main');
  requirementGroups(scan, project['optional-dependencies'], ['project', 'optional-dependencies']);
  requirementGroups(scan, doc['dependency-groups'], ['dependency-groups']);
  requirementList(scan, build.requires, ['build-system', 'requires'], 'build-system');
  poetryDependencies(scan, poetry);
  toolDependencies(scan, tool);
  const facts: Record<string, string> = {};
  const backend = str(build['build-backend']);
  if (backend) facts.buildBackend = backend;
  if (record(tool.pytest).ini_options) facts.testRunner = 'pytest';
  return { name: str(project.name) ?? str(poetry.name), version: str(project.version) ?? str(poetry.version), dependencies: scan.out, facts };
}
