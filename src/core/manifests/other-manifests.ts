import { parse as parseYaml } from 'yaml';
import type { ManifestDependency } from './manifest-schema.js';
import { asArray, record, str, xml, type ParsedManifest } from './parse-util.js';
import { readToml, tomlPositions, type TomlPositions } from './toml-positions.js';
import { outlineWorkflow } from './workflow-outline.js';

const CARGO_SECTIONS = ['dependencies', 'dev-dependencies', 'build-dependencies'] as const;

/** One table of Cargo dependencies (`[dependencies]`, a target's, the workspace's) at `key`. */
function cargoTable(out: ManifestDependency[], table: unknown, key: string[], scope: string, path: string, at: TomlPositions): void {
  for (const [name, spec] of Object.entries(record(table))) {
    const line = at.line([...key, name]);
    const s = record(spec);
    const version = typeof spec === 'string' ? spec : str(s.version);
    const versionLine = typeof spec === 'string' ? line : (at.line([...key, name, 'version']) ?? line);
    const kind = str(s.path) ? 'path' : s.workspace === true ? 'workspace' : 'dependency';
    out.push({
      name,
      ...(version !== undefined ? { version } : {}),
      scope,
      kind,
      ...(kind === 'path' ? { target: str(s.path) } : {}),
      ...(line ? { line } : {}),
      ...(version !== undefined && versionLine ? { versionAt: { path, line: versionLine } } : {}),
    });
  }
}

/**
 * Cargo.toml: `[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`, the same under each
 * `[target.'cfg(…)']`, and `[workspace.dependencies]`; a dependency's own table
 * (`[dependencies.serde]`) too. The scope is the section (`target.cfg(windows).dev-dependencies`).
 */
export function parseCargo(text: string, path = ''): ParsedManifest {
  const doc = readToml(text);
  const at = tomlPositions(text);
  const pkg = record(doc.package);
  const dependencies: ManifestDependency[] = [];
  for (const section of CARGO_SECTIONS) cargoTable(dependencies, doc[section], [section], section, path, at);
  for (const [cfg, body] of Object.entries(record(doc.target)))
    for (const section of CARGO_SECTIONS) cargoTable(dependencies, record(body)[section], ['target', cfg, section], `target.${cfg}.${section}`, path, at);
  const workspace = record(doc.workspace);
  cargoTable(dependencies, workspace.dependencies, ['workspace', 'dependencies'], 'workspace.dependencies', path, at);
  return { name: str(pkg.name), version: str(pkg.version), members: asArray(workspace.members as string[]).map(String), dependencies };
}

export function parseGemfile(text: string): ParsedManifest {
  const dependencies: ManifestDependency[] = [];
  for (const m of text.matchAll(/^\s*gem\s+["']([^"']+)["'](?:\s*,\s*["']([^"']+)["'])?/gm))
    dependencies.push({ name: m[1], version: m[2], kind: 'dependency' });
  return { dependencies };
}

export function parseComposer(text: string): ParsedManifest {
  const json = record(JSON.parse(text));
  const dependencies: ManifestDependency[] = [];
  for (const scope of ['require', 'require-dev']) {
    for (const [name, v] of Object.entries(record(json[scope]))) dependencies.push({ name, version: str(v), scope, kind: 'dependency' });
  }
  return { name: str(json.name), version: str(json.version), dependencies };
}

export function parseCsproj(text: string): ParsedManifest {
  const doc = record(xml.parse(text, true));
  const project = record(doc.Project);
  if (Object.keys(doc).length === 0 || !doc.Project) throw new Error('no <Project> element');
  const dependencies: ManifestDependency[] = [];
  for (const group of asArray(project.ItemGroup as Record<string, unknown>[])) {
    for (const ref of asArray(record(group).PackageReference as Record<string, unknown>[])) {
      const r = record(ref);
      if (str(r['@Include'])) dependencies.push({ name: str(r['@Include'])!, version: str(r['@Version']) ?? str(r.Version), kind: 'dependency' });
    }
    for (const ref of asArray(record(group).ProjectReference as Record<string, unknown>[])) {
      const inc = str(record(ref)['@Include']);
      if (inc) dependencies.push({ name: inc, kind: 'path', target: inc.replace(/\\/g, '/') });
    }
  }
  const facts: Record<string, string> = {};
  for (const group of asArray(project.PropertyGroup as Record<string, unknown>[])) {
    const tf = str(record(group).TargetFramework);
    if (tf) facts.targetFramework = tf;
  }
  return { dependencies, facts };
}

export function parseDockerfile(text: string): ParsedManifest {
  const images: string[] = [];
  for (const m of text.matchAll(/^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)/gim)) images.push(m[1]);
  if (images.length === 0) throw new Error('no FROM instruction');
  return {
    dependencies: images.map((i) => ({ name: i.split(':')[0], version: i.split(':')[1], kind: 'dependency' as const })),
    facts: { baseImages: images.join(',') },
  };
}

export function parseOpenApi(text: string): ParsedManifest {
  const doc = record(text.trimStart().startsWith('{') ? JSON.parse(text) : parseYaml(text));
  const version = str(doc.openapi) ?? str(doc.swagger);
  if (!version) throw new Error('no openapi/swagger version field');
  const info = record(doc.info);
  return {
    name: str(info.title),
    version: str(info.version),
    dependencies: [],
    facts: { specVersion: version, paths: String(Object.keys(record(doc.paths)).length) },
  };
}

const actionDependency = (uses: string): ManifestDependency => ({ name: uses.split('@')[0], version: uses.split('@')[1], kind: 'dependency' });

/** A workflow from its line outline when it has the plain shape, else from the full YAML parse (same result). */
export function parseWorkflow(text: string): ParsedManifest {
  const outline = outlineWorkflow(text);
  if (!outline) return parseWorkflowDocument(text);
  return { name: outline.name, dependencies: outline.uses.filter((u) => u !== '').map(actionDependency), facts: { jobs: [...outline.jobs].sort().join(',') } };
}

/** The full parse of a workflow: the reference the outline must agree with. */
export function parseWorkflowDocument(text: string): ParsedManifest {
  const doc = record(parseYaml(text));
  const jobs = record(doc.jobs);
  const dependencies: ManifestDependency[] = [];
  for (const job of Object.values(jobs)) {
    for (const step of asArray(record(job).steps as unknown[])) {
      const uses = str(record(step).uses);
      if (uses) dependencies.push(actionDependency(uses));
    }
  }
  return { name: str(doc.name), dependencies, facts: { jobs: Object.keys(jobs).sort().join(',') } };
}
