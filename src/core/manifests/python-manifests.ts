import { parse as parseToml } from 'smol-toml';
import type { ManifestDependency } from './manifest-schema.js';
import { asArray, record, str, type ParsedManifest } from './parse-util.js';

/** `name[extras] (op version)` from a PEP 508 requirement string. */
export function pep508(spec: string, scope: string): ManifestDependency | undefined {
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:\(?\s*([<>=!~]=?[^;#)]*))?/.exec(spec);
  if (!m) return undefined;
  return { name: m[1], version: m[2]?.trim() || undefined, scope, kind: 'dependency' };
}

export function parsePyproject(text: string): ParsedManifest {
  const doc = record(parseToml(text));
  const project = record(doc.project);
  const poetry = record(record(doc.tool).poetry);
  const dependencies: ManifestDependency[] = [];
  for (const d of asArray(project.dependencies as string[])) {
    const dep = pep508(String(d), 'main');
    if (dep) dependencies.push(dep);
  }
  for (const [group, list] of Object.entries(record(project['optional-dependencies']))) {
    for (const d of asArray(list as string[])) {
      const dep = pep508(String(d), group);
      if (dep) dependencies.push(dep);
    }
  }
  for (const [name, spec] of Object.entries(record(poetry.dependencies))) {
    if (name === 'python') continue;
    dependencies.push({
      name,
      version: str(spec) ?? str(record(spec).version),
      scope: 'main',
      kind: str(record(spec).path) ? 'path' : 'dependency',
      target: str(record(spec).path),
    });
  }
  const facts: Record<string, string> = {};
  const backend = str(record(doc['build-system'])['build-backend']);
  if (backend) facts.buildBackend = backend;
  if (record(record(doc.tool).pytest).ini_options) facts.testRunner = 'pytest';
  return { name: str(project.name) ?? str(poetry.name), version: str(project.version) ?? str(poetry.version), dependencies, facts };
}

export function parseRequirements(text: string): ParsedManifest {
  const dependencies: ManifestDependency[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line || line.startsWith('-')) continue;
    const dep = pep508(line, 'main');
    if (dep) dependencies.push(dep);
  }
  return { dependencies };
}

/** setup.cfg: `[options]` requirement lists. */
export function parseSetupCfg(_text: string): ParsedManifest {
  return { dependencies: [] };
}

/** setup.py, read as text (never run): literal requirement lists. */
export function parseSetupPy(_text: string): ParsedManifest {
  return { dependencies: [] };
}
